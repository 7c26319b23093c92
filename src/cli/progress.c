/* The progress line: a reporter thread that polls weft_get_progress. */
#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_DELAY_S 1.0     /* quiet for loads shorter than this */
#define PROGRESS_PERIOD_NS 250000000L

struct cli_progress {
  const weft *w;
  uint64_t total_bytes;
  uint32_t total_files;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int stop;               /* under lock */
  double start_s;
  double parsing_start_s; /* under lock; < 0 while reading */
};

static double progress_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void progress_duration(char *buf, size_t cap, double s) {
  if (s < 1) snprintf(buf, cap, "<1 s");
  else if (s < 60) snprintf(buf, cap, "%d s", (int)s);
  else if (s < 360000) snprintf(buf, cap, "%d min %02d s", (int)(s / 60), (int)s % 60);
  else snprintf(buf, cap, "a long time");
}

static int progress_percent(uint64_t done, uint64_t total) {
  if (!total) return 0;
  return done >= total ? 100 : (int)((double)done * 100.0 / (double)total);
}

static void progress_format_reading(char *buf, size_t cap, const weft_load_progress *p,
                                    uint64_t total_bytes, uint32_t total_files,
                                    double elapsed_s) {
  const double mib = 1024.0 * 1024.0;
  double done = (double)p->bytes_read / mib;
  double rate = elapsed_s > 0 ? done / elapsed_s : 0;
  if (!total_bytes) {
    snprintf(buf, cap, "loading: %.1f MiB, %u/%u files, %.1f MiB/s", done,
             p->files_done, total_files, rate);
    return;
  }
  if (p->bytes_read >= total_bytes) { /* read; the last file is unpacked */
    char spent[32];
    progress_duration(spent, sizeof spent, elapsed_s);
    snprintf(buf, cap, "loading: %.1f MiB read, %u/%u files tokenized (%s)",
             done, p->files_done, total_files, spent);
    return;
  }
  char left[32] = "?";
  if (rate > 0) {
    double rest = (double)total_bytes / mib - done;
    progress_duration(left, sizeof left, rest > 0 ? rest / rate : 0);
  }
  snprintf(buf, cap, "loading: %.1f/%.1f MiB (%d%%), %u/%u files, %.1f MiB/s, "
           "%s left reading", done, (double)total_bytes / mib,
           progress_percent(p->bytes_read, total_bytes), p->files_done,
           total_files, rate, left);
}

static void progress_format_parsing(char *buf, size_t cap, const weft_load_progress *p,
                                    uint32_t total_files, double parsing_s) {
  const double mib = 1024.0 * 1024.0;
  char spent[32];
  progress_duration(spent, sizeof spent, parsing_s);
  if (!p->events_queued) {
    snprintf(buf, cap, "loading: %.1f MiB in %u/%u files read; merging and "
             "parsing (%s)", (double)p->bytes_read / mib, p->files_done,
             total_files, spent);
    return;
  }
  double rate = parsing_s > 0 ? (double)p->events_parsed / parsing_s : 0;
  char left[32] = "?";
  if (rate > 0) {
    double rest = (double)(p->events_queued > p->events_parsed
                               ? p->events_queued - p->events_parsed : 0);
    progress_duration(left, sizeof left, rest / rate);
  }
  snprintf(buf, cap, "parsing: %.1f/%.1f M events (%d%%), %.2f M events/s, %s left",
           (double)p->events_parsed / 1e6, (double)p->events_queued / 1e6,
           progress_percent(p->events_parsed, p->events_queued), rate / 1e6, left);
}

void cli_progress_format(char *buf, size_t cap, const weft_load_progress *now,
                         uint64_t total_bytes, uint32_t total_files,
                         double elapsed_s, double parsing_s) {
  if (!buf || !cap) return;
  if (parsing_s < 0)
    progress_format_reading(buf, cap, now, total_bytes, total_files, elapsed_s);
  else
    progress_format_parsing(buf, cap, now, total_files, parsing_s);
}

/* One update of the line; the lock is held on entry and on return. */
static void progress_show(cli_progress *p, double now) {
  double parsing_start = p->parsing_start_s;
  pthread_mutex_unlock(&p->lock);
  weft_load_progress cur;
  weft_get_progress(p->w, &cur);
  char line[256];
  cli_progress_format(line, sizeof line, &cur, p->total_bytes, p->total_files,
                      now - p->start_s, parsing_start < 0 ? -1 : now - parsing_start);
  fprintf(stderr, "\r%s\033[K", line);
  fflush(stderr);
  pthread_mutex_lock(&p->lock);
}

static void *progress_thread(void *arg) {
  cli_progress *p = arg;
  int shown = 0;
  pthread_mutex_lock(&p->lock);
  while (!p->stop) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += PROGRESS_PERIOD_NS;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&p->wake, &p->lock, &until);
    if (p->stop) break;
    double now = progress_now();
    if (now - p->start_s < PROGRESS_DELAY_S) continue;
    progress_show(p, now);
    shown = 1;
  }
  pthread_mutex_unlock(&p->lock);
  if (shown) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  return NULL;
}

cli_progress *cli_progress_start(weft *w, uint64_t total_bytes,
                                 uint32_t total_files, int quiet) {
  if (quiet || !w || !isatty(STDERR_FILENO)) return NULL;
  cli_progress *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  *p = (cli_progress){.w = w, .total_bytes = total_bytes, .total_files = total_files,
                      .start_s = progress_now(), .parsing_start_s = -1};
  pthread_condattr_t attr;
  int ok = pthread_condattr_init(&attr) == 0;
  ok = ok && pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0;
  ok = ok && pthread_cond_init(&p->wake, &attr) == 0;
  pthread_condattr_destroy(&attr);
  if (!ok) {
    free(p);
    return NULL;
  }
  if (pthread_mutex_init(&p->lock, NULL) != 0) {
    pthread_cond_destroy(&p->wake);
    free(p);
    return NULL;
  }
  if (pthread_create(&p->thread, NULL, progress_thread, p) != 0) {
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    free(p);
    return NULL;
  }
  return p;
}

void cli_progress_phase(cli_progress *p, enum cli_progress_phase phase) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->parsing_start_s = phase == CLI_PROGRESS_PARSING ? progress_now() : -1;
  pthread_mutex_unlock(&p->lock);
}

void cli_progress_stop(cli_progress *p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->stop = 1;
  pthread_cond_signal(&p->wake);
  pthread_mutex_unlock(&p->lock);
  pthread_join(p->thread, NULL);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->wake);
  free(p);
}
