/*
 * warden-init: the sandbox init of a server with a network, as a small program. It does what
 * init.ts does, without starting a Node runtime before the server:
 *
 *   warden-init --port N -- COMMAND ARGS...
 *
 * Run inside the sandbox with Warden's Node IPC channel on fd 3, it makes the egress proxy's
 * listening socket on 127.0.0.1:N of the sandbox's empty network namespace and hands it to Warden
 * over that channel, in the message Node's child_process sends for a net.Server (one JSON line with
 * the socket attached), so Warden takes it exactly as it takes init.ts's. Only once Warden has
 * closed the channel does it drop its own copy of the socket and the channel, close every other
 * descriptor above 2, and exec COMMAND in its place: no code of the server runs while the channel
 * is open, and the server is the process Warden started, so signals and the exit status are its own.
 * It writes only to stderr: stdout belongs to the server's MCP traffic. Any failure before the
 * exec exits 2 with a line on stderr; a COMMAND that cannot be started, 127.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The channel Warden passes (Node's 'ipc' stdio entry after stdin, stdout and stderr). */
#define CHANNEL_FD 3
/* How long Warden may take to take the socket before the init gives up (as init.ts). */
#define HANDOVER_MS 15000

static void say(const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  dprintf(2, "warden-init: %s\n", line);
}

#define FAIL(...)                                                                                  \
  do {                                                                                             \
    say(__VA_ARGS__);                                                                              \
    exit(2);                                                                                       \
  } while (0)

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* The proxy's listening socket on 127.0.0.1:port. */
static int listen_on(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) FAIL("cannot listen on 127.0.0.1:%d: %s", port, strerror(errno));
  int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(fd, 511) < 0)
    FAIL("cannot listen on 127.0.0.1:%d: %s", port, strerror(errno));
  return fd;
}

/* Sends the socket as Node's child_process sends a net.Server: the JSON line and the descriptor. */
static void hand_over(int listener, int port) {
  char text[160];
  int len = snprintf(text, sizeof text,
                     "{\"cmd\":\"NODE_HANDLE\",\"type\":\"net.Server\",\"msg\":"
                     "{\"warden\":\"egress-listener\",\"port\":%d}}\n",
                     port);
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(sizeof(int))];
  } control;
  memset(&control, 0, sizeof control);
  struct iovec iov = {.iov_base = text, .iov_len = (size_t)len};
  struct msghdr msg = {
      .msg_iov = &iov,
      .msg_iovlen = 1,
      .msg_control = control.space,
      .msg_controllen = sizeof control.space,
  };
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &listener, sizeof(int));
  ssize_t sent;
  do sent = sendmsg(CHANNEL_FD, &msg, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent < 0) FAIL("cannot hand the proxy socket to Warden: %s", strerror(errno));
  /* The descriptor went with the first byte; the rest of the line follows on its own. */
  for (size_t done = (size_t)sent; done < (size_t)len;) {
    ssize_t n = send(CHANNEL_FD, text + done, (size_t)len - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) FAIL("cannot hand the proxy socket to Warden: %s", strerror(errno));
    done += (size_t)n;
  }
}

/* Waits until Warden closes the channel (what it sends meanwhile, its acknowledgement, is dropped). */
static void await_release(void) {
  long deadline = now_ms() + HANDOVER_MS;
  char buf[4096];
  for (;;) {
    long left = deadline - now_ms();
    if (left <= 0) FAIL("Warden did not take the proxy socket in time");
    struct pollfd p = {.fd = CHANNEL_FD, .events = POLLIN};
    int ready = poll(&p, 1, (int)left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) FAIL("cannot read the channel to Warden: %s", strerror(errno));
    if (ready == 0) continue;
    ssize_t n = read(CHANNEL_FD, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return;
    if (n < 0 && errno != EINTR && errno != EAGAIN)
      FAIL("cannot read the channel to Warden: %s", strerror(errno));
  }
}

/* Closes every descriptor above stderr: the server gets its stdio and nothing else. */
static void close_above_stderr(void) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
  DIR *dir = opendir("/proc/self/fd");
  if (!dir) FAIL("cannot list open descriptors: %s", strerror(errno));
  int own = dirfd(dir);
  int fds[1024];
  size_t count = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    int fd = atoi(e->d_name);
    if (fd > 2 && fd != own) {
      if (count == sizeof fds / sizeof fds[0]) FAIL("too many open descriptors");
      fds[count++] = fd;
    }
  }
  closedir(dir);
  for (size_t i = 0; i < count; i++) close(fds[i]);
}

/* The server's environment: init.ts's, with its own NODE_OPTIONS back and the channel's gone. */
static void server_env(void) {
  const char *own = getenv("WARDEN_SERVER_NODE_OPTIONS");
  if (own && *own) {
    if (setenv("NODE_OPTIONS", own, 1) < 0) FAIL("cannot set NODE_OPTIONS: %s", strerror(errno));
  } else {
    unsetenv("NODE_OPTIONS");
  }
  unsetenv("WARDEN_SERVER_NODE_OPTIONS");
  unsetenv("ELECTRON_RUN_AS_NODE");
  unsetenv("NODE_CHANNEL_FD");
  unsetenv("NODE_CHANNEL_SERIALIZATION_MODE");
}

int main(int argc, char **argv) {
  int port = 0;
  int sep = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) {
      sep = i;
      break;
    }
    if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
      char *end;
      long value = strtol(argv[++i], &end, 10);
      if (*end != '\0' || value < 1 || value > 65535) FAIL("--port needs a port number");
      port = (int)value;
    } else {
      FAIL("unknown option %s", argv[i]);
    }
  }
  if (sep == 0 || sep == argc - 1) FAIL("usage: warden-init --port N -- COMMAND [ARGS...]");
  if (port == 0) FAIL("--port needs a port number");
  struct stat st;
  if (fstat(CHANNEL_FD, &st) < 0 || !S_ISSOCK(st.st_mode))
    FAIL("no egress channel on fd 3 (Warden passes it)");

  int listener = listen_on(port);
  hand_over(listener, port);
  await_release();
  close(listener);
  close(CHANNEL_FD);
  close_above_stderr();
  server_env();
  execvp(argv[sep + 1], argv + sep + 1);
  say("cannot start %s: %s", argv[sep + 1], strerror(errno));
  return 127;
}
