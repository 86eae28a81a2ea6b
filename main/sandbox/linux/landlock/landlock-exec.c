/*
 * landlock-exec: the Landlock backend's launcher. Node cannot make the Landlock system calls, so
 * this small program does it, then runs the server in its place:
 *
 *   landlock-exec --abi                      prints the kernel's Landlock ABI (0: none)
 *   landlock-exec [--ro P] [--rx P] [--rw P] [--lsn P] [--rxn P] [--rwn P] [--dev P]
 *                 [--connect PORT | --no-inet] [--scope] [--min-abi N] [--chdir DIR]
 *                 [--unsetenv NAME] --seccomp-fd FD -- PROGRAM ARGS...
 *
 * In order: read the seccomp program from FD; open every path (a missing one is an error; one of
 * --lsn (list only), --rxn and --rwn, a declared folder or an entry of one, also when any part of
 * it is a symlink, since something could have put one in its place after Warden checked it);
 * build a ruleset that handles every filesystem right the kernel knows, TCP bind/connect (ABI >= 4;
 * only the --connect port, no bind at all) and abstract Unix sockets and signals (ABI >= 6, with
 * --scope); drop every capability and the bounding set; no_new_privs; restrict itself; the
 * filters of net-filter.c (datagram, raw and Fast Open refused, or every Internet socket with
 * --no-inet; the host's System V IPC, POSIX message queues and listen() refused). Then it forks. The child, with --connect, hands its connect() notifications to
 * this process (net-filter.c), installs the seccomp program and execs PROGRAM. This process stays,
 * not dumpable, as the subreaper of everything PROGRAM starts: it answers connect() and kills what
 * is left (detached daemons too) when PROGRAM ends or Warden stops it. Any failure before PROGRAM
 * runs exits 125 with a line on stderr.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net-filter.h"

struct ruleset_attr { uint64_t fs, net, scoped; };
struct path_attr { uint64_t allowed; int32_t fd; } __attribute__((packed));
struct port_attr { uint64_t allowed; uint64_t port; };

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)
#define FS_FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
#define NET_BIND_TCP (1ULL << 0)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

/* System paths, the roots, and the entries granted one by one around kept workspace files. */
#define MAX_ITEMS 4096
/* Warden waits 2 s after SIGTERM before SIGKILL (spawn-plan.ts): the sweep ends well before. */
#define STOP_GRACE_MS 1000
static const char *paths[MAX_ITEMS];
static uint64_t rights[MAX_ITEMS];
static unsigned char exact[MAX_ITEMS];
static int path_count;
static long ports[64];
static int port_count;
static volatile sig_atomic_t stop_signal;
static pid_t server;
static int no_inet;
static uint16_t pin_port;
static const char *chdir_to;

static void die(const char *what) {
  fprintf(stderr, "landlock-exec: %s: %s\n", what, strerror(errno));
  exit(125);
}

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "landlock-exec: %s%s\n", what, detail);
  exit(125);
}

static int abi(void) {
  long v = syscall(__NR_landlock_create_ruleset, NULL, 0, 1UL /* VERSION */);
  return v < 0 ? 0 : (int)v;
}

static uint64_t handled_fs(int v) {
  uint64_t all = (1ULL << 13) - 1; /* ABI 1: execute .. make_sym */
  if (v >= 2) all |= 1ULL << 13;   /* refer */
  if (v >= 3) all |= FS_TRUNCATE;
  if (v >= 5) all |= FS_IOCTL_DEV;
  return all;
}

static void add_path(const char *path, uint64_t want, int no_symlinks) {
  if (path_count == MAX_ITEMS) fail("too many paths", "");
  paths[path_count] = path;
  exact[path_count] = (unsigned char)no_symlinks;
  rights[path_count++] = want;
}

/* Opens path for a rule; with no_symlinks, refuses a symlink anywhere in it (the last part too). */
static int open_rule_path(const char *path, int no_symlinks) {
  if (!no_symlinks) return open(path, O_PATH | O_CLOEXEC);
  struct open_how how = {0};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  if (fd < 0 && errno == ELOOP) fail(path, " is or passes through a symlink now, which it was not when Warden checked it");
  return fd;
}

/* Reads the seccomp program (struct sock_filter[]) from fd. */
static struct sock_fprog read_program(int fd) {
  static unsigned char buf[1 << 20];
  size_t len = 0;
  for (;;) {
    ssize_t n = read(fd, buf + len, sizeof buf - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("reading the seccomp program");
    if (n == 0) break;
    len += (size_t)n;
    if (len == sizeof buf) fail("seccomp program too large", "");
  }
  close(fd);
  if (len == 0 || len % sizeof(struct sock_filter) != 0) fail("no seccomp program on its fd", "");
  struct sock_fprog prog = {(unsigned short)(len / sizeof(struct sock_filter)),
                            (struct sock_filter *)buf};
  return prog;
}

static void drop_capabilities(void) {
  for (int cap = 0; cap < 64; cap++) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  /* SECBIT_NOROOT | NO_SETUID_FIXUP | KEEP_CAPS_LOCKED ... all locked: root gains nothing on exec. */
  if (getuid() == 0 || geteuid() == 0) {
    if (prctl(PR_SET_SECUREBITS, 0x2f, 0, 0, 0) != 0) die("securebits");
  }
  struct { uint32_t version; int pid; } head = {0x20080522, 0};
  struct { uint32_t effective, permitted, inheritable; } data[2];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &head, data) != 0) die("dropping capabilities");
}

static void apply_landlock(int min_abi, int scope) {
  int v = abi();
  if (v < 1) fail("Landlock is not enabled in this kernel", "");
  if (v < min_abi) fail("the kernel's Landlock ABI is older than this policy needs", "");
  struct ruleset_attr attr = {handled_fs(v), 0, 0};
  if (v >= 4) attr.net = NET_BIND_TCP | NET_CONNECT_TCP;
  if (v >= 6 && scope) attr.scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL;
  size_t size = v >= 6 ? sizeof attr : v >= 4 ? offsetof(struct ruleset_attr, scoped)
                                               : offsetof(struct ruleset_attr, net);
  int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
  if (ruleset < 0) die("landlock_create_ruleset");
  for (int i = 0; i < path_count; i++) {
    int fd = open_rule_path(paths[i], exact[i]);
    if (fd < 0) {
      fprintf(stderr, "landlock-exec: %s: %s\n", paths[i], strerror(errno));
      exit(125);
    }
    struct stat st;
    if (fstat(fd, &st) != 0) die("fstat");
    struct path_attr rule = {rights[i] & attr.fs, fd};
    if (!S_ISDIR(st.st_mode)) rule.allowed &= FS_FILE_RIGHTS;
    if (syscall(__NR_landlock_add_rule, ruleset, 1 /* PATH_BENEATH */, &rule, 0) != 0) {
      fprintf(stderr, "landlock-exec: rule for %s: %s\n", paths[i], strerror(errno));
      exit(125);
    }
    close(fd);
  }
  if (port_count > 0 && v < 4) fail("network rules need Landlock ABI 4", "");
  if (port_count > 1) fail("one --connect port at most", "");
  for (int i = 0; i < port_count; i++) {
    struct port_attr rule = {NET_CONNECT_TCP, (uint64_t)ports[i]};
    if (syscall(__NR_landlock_add_rule, ruleset, 2 /* NET_PORT */, &rule, 0) != 0)
      die("landlock_add_rule (port)");
  }
  drop_capabilities();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs");
  if (syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) die("landlock_restrict_self");
  close(ruleset);
}

/* SIGUSR1 from Warden: a stop at once (SIGKILL to this process would leave what it reaps alive). */
static void on_signal(int sig) {
  stop_signal = sig;
  if (server > 0) kill(server, sig == SIGUSR1 ? SIGKILL : sig);
}

/* Signals every process this one reaps for: children, and orphans re-parented to it. */
static void signal_children(int sig) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
  FILE *f = fopen(path, "r");
  if (!f) return;
  long pid;
  while (fscanf(f, "%ld", &pid) == 1) kill((pid_t)pid, sig);
  fclose(f);
}

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void sync_io(ssize_t n) {
  if (n != (ssize_t)sizeof(int)) fail("the launcher lost its child before the server started", "");
}

/* Runs the server in a child and supervises it; see the top of the file. */
static int supervise(char **argv, struct sock_fprog *program) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) die("subreaper");
  /* Warden's own death stops the server at once, as SIGUSR1 does: a stop Warden meant comes as
   * SIGTERM before it exits, and with Warden gone nothing watches the folders the server may write
   * or moves aside what it leaves there, so it gets no grace to write them. */
  if (prctl(PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0) != 0) die("pdeathsig");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  int up[2], down[2];
  if (pipe2(up, O_CLOEXEC) != 0 || pipe2(down, O_CLOEXEC) != 0) die("pipe");
  server = fork();
  if (server < 0) die("fork");
  if (server == 0) {
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (pin_port) {
      /* The listener goes to the parent before any code of the server runs. */
      int listener = install_connect_notify(), ack;
      sync_io(write(up[1], &listener, sizeof listener));
      sync_io(read(down[0], &ack, sizeof ack));
      close(listener);
    }
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, program) != 0) die("seccomp");
    if (chdir_to && chdir(chdir_to) != 0) {
      fprintf(stderr, "landlock-exec: %s: %s\n", chdir_to, strerror(errno));
      _exit(125);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "landlock-exec: %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  int listener = -1;
  if (pin_port) {
    int remote, ack = 1;
    sync_io(read(up[0], &remote, sizeof remote));
    int pidfd = (int)syscall(SYS_pidfd_open, server, 0);
    listener = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, remote, 0);
    if (listener < 0) {
      kill(server, SIGKILL);
      die("taking the connect listener");
    }
    close(pidfd);
    /* Not dumpable: the server, same user and same Landlock domain, cannot write this memory. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) die("dumpable");
    sync_io(write(down[1], &ack, sizeof ack));
  }
  int status = 0, code = 0;
  /* Stopped by Warden (SIGTERM): everything gets SIGTERM, and after STOP_GRACE_MS, shorter than
   * Warden's own grace, SIGKILL, so that nothing that ignores SIGTERM outlives it. Stopped at once
   * (SIGUSR1, or Warden gone): SIGKILL. */
  long long deadline = -1;
  for (;;) {
    if (stop_signal && deadline < 0) {
      int now = stop_signal == SIGUSR1;
      deadline = now_ms() + (now ? 0 : STOP_GRACE_MS);
      signal_children(now ? SIGKILL : SIGTERM);
    }
    if (deadline >= 0 && now_ms() >= deadline) signal_children(SIGKILL);
    int timed = listener >= 0 || deadline >= 0;
    if (listener >= 0) {
      struct pollfd p = {listener, POLLIN, 0};
      int wait = deadline >= 0 && stop_signal == SIGUSR1 ? 1 : 100;
      if (poll(&p, 1, wait) > 0 && (p.revents & POLLIN)) answer_connect(listener, pin_port);
    } else if (deadline >= 0) {
      /* A stop at once goes round fast: each pass kills what was re-parented to this process as
       * the pass before killed its parent, so a deep chain of processes ends level by level. */
      poll(NULL, 0, stop_signal == SIGUSR1 ? 1 : 50);
    }
    int st;
    pid_t pid = waitpid(-1, &st, timed ? WNOHANG : 0);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) break;
    if (pid == 0) continue;
    if (pid == server) {
      status = st;
      server = -1;
    }
    if (server < 0) signal_children(SIGKILL);
  }
  if (WIFEXITED(status)) code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) code = 128 + WTERMSIG(status);
  return code;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--abi") == 0) {
    printf("%d\n", abi());
    return 0;
  }
  int seccomp_fd = -1, min_abi = 1, scope = 0, i = 1;
  const uint64_t ro = FS_READ_FILE | FS_READ_DIR;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) break;
    if (strcmp(a, "--scope") == 0) { scope = 1; continue; }
    if (strcmp(a, "--no-inet") == 0) { no_inet = 1; continue; }
    if (i + 1 >= argc) fail("missing value after ", a);
    const char *v = argv[++i];
    if (strcmp(a, "--ro") == 0) add_path(v, ro, 0);
    else if (strcmp(a, "--rx") == 0) add_path(v, ro | FS_EXECUTE, 0);
    else if (strcmp(a, "--rw") == 0) add_path(v, ~0ULL, 0);
    else if (strcmp(a, "--lsn") == 0) add_path(v, FS_READ_DIR, 1);
    else if (strcmp(a, "--rxn") == 0) add_path(v, ro | FS_EXECUTE, 1);
    else if (strcmp(a, "--rwn") == 0) add_path(v, ~0ULL, 1);
    else if (strcmp(a, "--dev") == 0) add_path(v, ro | FS_WRITE_FILE | FS_IOCTL_DEV, 0);
    else if (strcmp(a, "--connect") == 0 && port_count < 64) {
      ports[port_count] = strtol(v, NULL, 10);
      if (ports[port_count] < 1 || ports[port_count] > 65535) fail("bad port ", v);
      port_count++;
    } else if (strcmp(a, "--seccomp-fd") == 0) seccomp_fd = atoi(v);
    else if (strcmp(a, "--min-abi") == 0) min_abi = atoi(v);
    else if (strcmp(a, "--chdir") == 0) chdir_to = v;
    else if (strcmp(a, "--unsetenv") == 0) unsetenv(v);
    else fail("unknown option ", a);
  }
  if (i + 1 >= argc) fail("expected -- PROGRAM [ARGS...]", "");
  if (seccomp_fd < 3) fail("a seccomp program fd (--seccomp-fd) is required", "");
  if (no_inet && port_count > 0) fail("--no-inet and --connect exclude each other", "");
  struct sock_fprog program = read_program(seccomp_fd);
  apply_landlock(min_abi, scope);
  deny_datagrams(no_inet);
  deny_host_ipc();
  if (port_count == 1) pin_port = (uint16_t)ports[0];
  return supervise(argv + i + 1, &program);
}
