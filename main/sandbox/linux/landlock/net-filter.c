/*
 * The launcher's filters for what a sandbox without namespaces would otherwise share with the host,
 * beside Landlock's rules:
 *
 * deny_host_ipc: System V IPC (shm, sem, msg) and POSIX message queues are the host's here (no IPC
 * namespace): another program's segments and queues could be attached by key or name. Refused,
 * and so is listen(), which on an unbound socket picks a port itself without the bind that
 * Landlock's rule checks.
 *
 * deny_datagrams: socket(AF_INET/AF_INET6) of any type but SOCK_STREAM (UDP, raw) is refused, or
 * of any type (--no-inet), and so is TCP Fast Open (sendto/sendmsg with MSG_FASTOPEN, a connect
 * without connect()). Landlock rules cover TCP bind and connect only.
 *
 * install_connect_notify / answer_connect: Landlock's rule names a port, not an address, so on its
 * own it would let the server reach that port on any host. Every connect() of the server is
 * therefore sent to the launcher (seccomp user notification); the launcher reads the address,
 * refuses all but 127.0.0.1:PORT (or ::ffff:127.0.0.1) with EACCES, and for that one opens the
 * connection itself to the fixed address and puts it in place of the server's socket (ADDFD with
 * SETFD). The server's memory can change after it is read, but what is connected never depends
 * on it: the address the launcher connects to is a constant.
 */
#define _GNU_SOURCE
#include "net-filter.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define WARDEN_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define WARDEN_ARCH AUDIT_ARCH_AARCH64
#else
#error "landlock-exec supports x86-64 and arm64"
#endif

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define REFUSE BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES)
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static void install(struct sock_filter *f, unsigned short n, unsigned flags, int *listener) {
  struct sock_fprog prog = {n, f};
  long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
  if (r < 0) {
    fprintf(stderr, "landlock-exec: network filter: %s\n", strerror(errno));
    exit(125);
  }
  if (listener) *listener = (int)r;
}

void deny_datagrams(int no_inet) {
  struct sock_filter f[] = {
      LOAD(arch),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WARDEN_ARCH, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      LOAD(nr),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 7),
      LOAD(args[0]),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 0, 13),
      LOAD(args[1]),
      BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, no_inet ? 0xffff : SOCK_STREAM, 10, 0),
      REFUSE,
      /* sendto(fd, buf, len, flags, ...) and sendmmsg(fd, vec, n, flags): flags is args[3]. */
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sendto, 1, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sendmmsg, 0, 2),
      LOAD(args[3]),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MSG_FASTOPEN, 4, 5),
      /* sendmsg(fd, msg, flags): flags is args[2]. */
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sendmsg, 0, 4),
      LOAD(args[2]),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MSG_FASTOPEN, 0, 2),
      REFUSE,
      REFUSE,
      ALLOW,
  };
  install(f, sizeof f / sizeof f[0], 0, NULL);
}

void deny_host_ipc(void) {
  static const int calls[] = {__NR_shmget, __NR_shmat, __NR_shmctl, __NR_semget, __NR_semop,
                              __NR_semctl, __NR_semtimedop, __NR_msgget, __NR_msgsnd,
                              __NR_msgrcv, __NR_msgctl, __NR_mq_open, __NR_mq_unlink,
                              __NR_mq_timedsend, __NR_mq_timedreceive, __NR_mq_notify,
                              __NR_mq_getsetattr, __NR_listen};
  enum { N = sizeof calls / sizeof calls[0] };
  struct sock_filter f[4 + N + 2];
  unsigned short n = 0;
  f[n++] = (struct sock_filter)LOAD(arch);
  f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WARDEN_ARCH, 1, 0);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
  f[n++] = (struct sock_filter)LOAD(nr);
  /* Each match jumps to the REFUSE after the list; no match falls through to ALLOW. */
  for (int i = 0; i < N; i++)
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)calls[i],
                                          (unsigned char)(N - i), 0);
  f[n++] = (struct sock_filter)ALLOW;
  f[n++] = (struct sock_filter)REFUSE;
  install(f, n, 0, NULL);
}

int install_connect_notify(void) {
  struct sock_filter f[] = {
      LOAD(arch),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WARDEN_ARCH, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      LOAD(nr),
      /* x32 numbers (x86-64 only) never reach the server: the main filter refuses them too. */
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
      REFUSE,
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_connect, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
      ALLOW,
  };
  int listener = -1;
  install(f, sizeof f / sizeof f[0], SECCOMP_FILTER_FLAG_NEW_LISTENER, &listener);
  return listener;
}

/* Whether `a` (len bytes, as read) names 127.0.0.1:port, and which family to connect with. */
static int loopback_port(const unsigned char *a, size_t len, uint16_t port, int *family) {
  struct sockaddr_in in4;
  struct sockaddr_in6 in6;
  if (len >= sizeof in4 && ((const struct sockaddr *)a)->sa_family == AF_INET) {
    memcpy(&in4, a, sizeof in4);
    *family = AF_INET;
    return in4.sin_addr.s_addr == htonl(INADDR_LOOPBACK) && ntohs(in4.sin_port) == port;
  }
  if (len >= sizeof in6 && ((const struct sockaddr *)a)->sa_family == AF_INET6) {
    static const unsigned char mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1};
    memcpy(&in6, a, sizeof in6);
    *family = AF_INET6;
    return memcmp(&in6.sin6_addr, mapped, 16) == 0 && ntohs(in6.sin6_port) == port;
  }
  return 0;
}

/* The O_NONBLOCK flag of fd `fd` in process `pid` (from /proc/PID/fdinfo), or -1. */
static int nonblocking(pid_t pid, int fd) {
  char path[64], line[128];
  snprintf(path, sizeof path, "/proc/%d/fdinfo/%d", (int)pid, fd);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int result = -1;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "flags:", 6) == 0) result = (strtol(line + 6, NULL, 8) & O_NONBLOCK) != 0;
  }
  fclose(f);
  return result;
}

/* Opens the connection to the proxy itself; answers the fd, or -errno. */
static int connect_proxy(int family, uint16_t port, int nonblock) {
  int s = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -errno;
  int r;
  if (family == AF_INET) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    r = connect(s, (struct sockaddr *)&a, sizeof a);
  } else {
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
    a.sin6_addr.s6_addr[10] = a.sin6_addr.s6_addr[11] = 0xff;
    a.sin6_addr.s6_addr[12] = 127;
    a.sin6_addr.s6_addr[15] = 1;
    r = connect(s, (struct sockaddr *)&a, sizeof a);
  }
  if (r != 0) {
    int e = errno;
    close(s);
    return -e;
  }
  if (nonblock) fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
  return s;
}

void answer_connect(int listener, uint16_t port) {
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;
  memset(&req, 0, sizeof req);
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) return;
  memset(&resp, 0, sizeof resp);
  resp.id = req.id;
  resp.error = -EACCES;
  unsigned char addr[sizeof(struct sockaddr_in6)];
  size_t len = req.data.args[2] < sizeof addr ? (size_t)req.data.args[2] : sizeof addr;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", (int)req.pid);
  int mem = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t got = mem < 0 ? -1 : pread(mem, addr, len, (off_t)req.data.args[1]);
  if (mem >= 0) close(mem);
  int family = 0;
  /* The id is still valid: the pid read is the process that is waiting, not a reused one. */
  if (got == (ssize_t)len && ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &req.id) == 0 &&
      loopback_port(addr, len, port, &family)) {
    int target = (int)req.data.args[0];
    int nb = nonblocking(req.pid, target);
    int s = nb < 0 ? -EBADF : connect_proxy(family, port, nb);
    if (s < 0) {
      resp.error = s;
    } else {
      struct seccomp_notif_addfd add = {.id = req.id,
                                        .flags = SECCOMP_ADDFD_FLAG_SETFD,
                                        .srcfd = (uint32_t)s,
                                        .newfd = (uint32_t)target,
                                        .newfd_flags = 0};
      resp.error = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) >= 0 ? 0 : -errno;
      close(s);
    }
  }
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}
