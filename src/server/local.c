/* The RPC stream on standard input and output, and on a unix-domain
 * socket (server.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rpc_stream.h"
#include "server.h"

#define LOCAL_READ_SIZE (64 * 1024)
#define LOCAL_POLL_MS 100

static volatile sig_atomic_t local_stop;
#define LOCAL_PATH_MAX sizeof(((struct sockaddr_un *)0)->sun_path)

static int local_write_fd(int fd, const void *data, size_t len) {
  const uint8_t *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR && !local_stop) continue;
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static int local_send_stdout(void *user, const void *data, size_t len) {
  (void)user;
  return local_write_fd(STDOUT_FILENO, data, len);
}

int server_stdio_run(const weft_options *options, weft *preloaded, const char *name,
                     char *err, size_t err_cap) {
  (void)err;
  (void)err_cap;
  rpc_session session;
  rpc_session_init(&session, options, preloaded, name);
  rpc_stream stream;
  rpc_stream_init(&stream, &session, local_send_stdout, NULL);
  static uint8_t buf[LOCAL_READ_SIZE];
  for (;;) {
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || rpc_stream_feed(&stream, buf, (size_t)n) != 0) break;
  }
  rpc_stream_free(&stream);
  rpc_session_free(&session);
  return 0;
}

/* ---- unix-domain sockets ---- */

static int local_name_ok(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > 64 || name[0] == '-' || name[0] == '_') return 0;
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '-' || c == '_';
    if (!ok) return 0;
  }
  return 1;
}

int server_unix_path(const char *name, int create_dir, char *out, size_t cap, char *err,
                     size_t err_cap) {
  if (!local_name_ok(name)) {
    snprintf(err, err_cap, "bad session name '%s' (letters, digits, '-' and '_', "
             "at most 64, starting with a letter or digit)", name);
    return -1;
  }
  char dir[256];
  const char *xdg = getenv("XDG_RUNTIME_DIR");
  if (xdg && *xdg) snprintf(dir, sizeof dir, "%s/weft", xdg);
  else snprintf(dir, sizeof dir, "/tmp/weft-%u", (unsigned)getuid());
  if (create_dir && mkdir(dir, 0700) != 0 && errno != EEXIST) {
    snprintf(err, err_cap, "cannot create %s: %s", dir, strerror(errno));
    return -1;
  }
  struct stat st;
  if (create_dir && (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())) {
    snprintf(err, err_cap, "%s is not a directory of this user", dir);
    return -1;
  }
  int n = snprintf(out, cap, "%s/%s.sock", dir, name);
  if (n < 0 || (size_t)n >= cap || (size_t)n >= LOCAL_PATH_MAX) {
    snprintf(err, err_cap, "the socket path %s/%s.sock is too long", dir, name);
    return -1;
  }
  return 0;
}

static int local_address(const char *path, struct sockaddr_un *addr) {
  memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  if (strlen(path) >= sizeof addr->sun_path) return -1;
  memcpy(addr->sun_path, path, strlen(path));
  return 0;
}

int server_unix_connect(const char *path) {
  struct sockaddr_un addr;
  if (local_address(path, &addr)) return -1;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* A listening socket at path; a stale socket there (no server answers)
 * is replaced, a live one is an error. */
static int local_listen(const char *path, char *err, size_t err_cap) {
  int live = server_unix_connect(path);
  if (live >= 0) {
    close(live);
    snprintf(err, err_cap, "a weft server already serves %s", path);
    return -1;
  }
  (void)unlink(path);
  struct sockaddr_un addr;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || local_address(path, &addr) ||
      bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 16) != 0) {
    snprintf(err, err_cap, "cannot listen on %s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

static void local_on_signal(int sig) {
  (void)sig;
  local_stop = 1;
}

static void local_catch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = local_on_signal;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, NULL);
  (void)sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

static uint64_t local_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int local_send_fd(void *user, const void *data, size_t len) {
  return local_write_fd(*(int *)user, data, len);
}

/* Serves one client until it disconnects (one at a time, each with a
 * stream of its own on the session). */
static void local_serve_client(rpc_session *session, int fd) {
  rpc_stream stream;
  rpc_stream_init(&stream, session, local_send_fd, &fd);
  static uint8_t buf[LOCAL_READ_SIZE];
  while (!local_stop) {
    struct pollfd pfd = {fd, POLLIN, 0};
    int ready = poll(&pfd, 1, LOCAL_POLL_MS);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || rpc_stream_feed(&stream, buf, (size_t)n) != 0) break;
  }
  rpc_stream_free(&stream);
  close(fd);
}

static void local_accept_loop(int listen_fd, rpc_session *session, uint64_t idle_ms) {
  uint64_t last = local_now_ms();
  while (!local_stop && !(idle_ms && local_now_ms() - last >= idle_ms)) {
    struct pollfd pfd = {listen_fd, POLLIN, 0};
    if (poll(&pfd, 1, LOCAL_POLL_MS) <= 0) continue;
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) continue;
    local_serve_client(session, fd);
    last = local_now_ms();
  }
}

int server_daemonize(int *ready_fd) {
  int fds[2];
  if (pipe(fds) != 0) return 1;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    close(fds[0]);
    *ready_fd = fds[1];
    (void)setsid();
    return -1;
  }
  close(fds[1]);
  char record[1024];
  size_t len = 0;
  ssize_t n;
  while (len < sizeof record - 1 &&
         ((n = read(fds[0], record + len, sizeof record - 1 - len)) > 0 ||
          (n < 0 && errno == EINTR)))
    len += n > 0 ? (size_t)n : 0;
  close(fds[0]);
  if (len == 0) return 1; /* the child failed (its message is on stderr) */
  fwrite(record, 1, len, stdout);
  fflush(stdout);
  return 0;
}

/* The server is ready: the startup record goes to stdout, or through the
 * pipe to the parent of a daemon, whose standard streams are then let go. */
static void local_announce(const server_unix_options *u, const char *path) {
  char record[1024];
  char idle[32] = "never";
  if (u->idle_timeout_ms)
    snprintf(idle, sizeof idle, "%llums", (unsigned long long)u->idle_timeout_ms);
  int n = snprintf(record, sizeof record, "weft-session pid=%d session=%s socket-path=%s "
                   "idle-timeout=%s\n", (int)getpid(), u->name, path, idle);
  if (n < 0 || (size_t)n >= sizeof record) n = 0;
  if (u->ready_fd < 0) {
    fwrite(record, 1, (size_t)n, stdout);
    fflush(stdout);
    if (!u->quiet)
      fprintf(stderr, "weft: serving session '%s'; query it with: weft query --remote %s "
                      "\"SELECT ...\"\n", u->name, u->name);
    return;
  }
  (void)local_write_fd(u->ready_fd, record, (size_t)n);
  close(u->ready_fd);
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    if (null > STDERR_FILENO) close(null);
  }
}

int server_unix_run(const server_unix_options *u, const weft_options *options,
                    weft *preloaded, const char *name, char *err, size_t err_cap) {
  char path[LOCAL_PATH_MAX];
  if (server_unix_path(u->name, 1, path, sizeof path, err, err_cap)) {
    weft_close(preloaded);
    return -1;
  }
  local_stop = 0;
  local_catch_signals();
  int listen_fd = local_listen(path, err, err_cap);
  if (listen_fd < 0) {
    weft_close(preloaded);
    return -1;
  }
  local_announce(u, path);
  rpc_session session;
  rpc_session_init(&session, options, preloaded, name);
  local_accept_loop(listen_fd, &session, u->idle_timeout_ms);
  close(listen_fd);
  (void)unlink(path);
  rpc_session_free(&session);
  return 0;
}
