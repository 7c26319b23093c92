/* The weft command: flags, loading, queries. Compatible with
 * trace_processor_shell's -q/-Q usage. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "base/base.h"
#include "cli.h"
#include "merge.h"
#include "progress.h"
#include "subcommands.h"
#include "view.h"

/* What --placement prints: how each trace file reached trace time. */
#define CLI_PLACEMENT_SQL                                                        \
  "select trace_file_id, file_name, trace_type, machine_name, clock_name, rule, " \
  "is_guess, clock_path, offset_ns, dropped_events, detail from weft_placement "  \
  "order by trace_file_id"

typedef struct cli_args {
  const char *query_file;
  const char *query_string;
  const char *perf_file;
  int stats_on_load;
  int quiet;
  int strict; /* an error or data_loss stat fails the run */
  int no_validate; /* weft merge --no-validate */
  const char *merge_output; /* `weft merge -o FILE` */
  int is_merge;
  weft_options options;
  cli_merge merge;
  cli_mode mode; /* subcommands and the RPC server */
  const char **traces;
  int trace_count;
  weft_sql_package *sql_packages; /* --add/--override-sql-package */
  char **sql_package_paths;       /* their PATH parts, owned */
  size_t sql_package_count;
} cli_args;

static void cli_usage(FILE *out) {
  fprintf(out,
      "usage: weft [flags] TRACE...\n"
      "       weft merge -o OUT.zip|OUT.tar [merge flags] TRACE...\n"
      "Loads one or more trace files (merged onto one timeline) and runs SQL;\n"
      "`weft merge` writes them as one archive with a perfetto_manifest.json.\n"
      "\n"
      "  -q, --query-file FILE    run the SQL in FILE (- for standard input), print\n"
      "                           results as CSV, exit\n"
      "  -Q, --query-string SQL   run SQL, print results as CSV, exit\n"
      "                           (without -q/-Q: an interactive SQL shell)\n"
      "      --perf-file FILE     write load and query times (ns) to FILE\n"
      "      --stats-on-load      print the summary of lost data and errors after\n"
      "                           loading even with --quiet (printed by default)\n"
      "      --max-memory SIZE    memory budget for one input file (e.g. 4G;\n"
      "                           default: no limit)\n"
      "  Limits for hostile input (SIZE takes a K/M/G suffix):\n"
      "      --max-decompressed SIZE  bytes one compressed stream or archive\n"
      "                           member may expand to (default 64G)\n"
      "      --max-ratio N        decompressed/compressed ratio, per container\n"
      "                           and over the whole input (default 100)\n"
      "      --max-archive-depth N  containers nested in containers (default 4)\n"
      "      --max-members N      entries per archive (default 100000)\n"
      "      --max-json-depth N   nesting of JSON values (default 512)\n"
      "      --max-line SIZE      one line of a text trace (default 16M)\n"
      "      --max-string SIZE    one JSON string (default 64M)\n"
      "      --threads N          worker threads (default: number of cores)\n"
      "      --quiet              no progress or summaries on stderr\n"
      "      --strict             exit 1 when loading lost data or met errors\n"
      "                           (any error or data_loss stat; weft merge: any\n"
      "                           dropped or guessed placement)\n"
      "merging (FILE is an input as given, or its base name):\n"
      "      --manifest FILE      apply a perfetto_manifest to the inputs\n"
      "      --machine FILE=NAME  FILE's data is from machine NAME\n"
      "      --sync FILE=REF      place FILE relative to input REF\n"
      "      --clock FILE=CLOCK   FILE's clock to relate (default: FILE is\n"
      "                           treated as clockless and pinned)\n"
      "      --ref-clock FILE=CLOCK  REF's clock (default BOOTTIME, or REF's\n"
      "                           own timeline when REF is JSON)\n"
      "      --offset FILE=DUR    FILE reads T when REF reads T+DUR (250ms, -1s)\n"
      "      --trace-time [FILE=]CLOCK  the clock of the merged timeline\n"
      "      --placement          print how each file was placed on the timeline\n"
      "                           (the weft_placement table) instead of a query\n"
      "      --clock-interpolation nearest|linear  between two clock snapshots:\n"
      "                           the nearest (default, as Perfetto) or linear\n"
      "  -o, --output FILE        (weft merge) the archive to write; the merge is\n"
      "                           loaded first and what it would drop reported\n"
      "      --no-validate        (weft merge) skip that check\n"
      "      --add-sql-package PATH[@PACKAGE]  the .sql files under directory\n"
      "                           PATH become modules of PACKAGE (default: the\n"
      "                           directory's name): a/b.sql is PACKAGE.a.b, for\n"
      "                           INCLUDE PERFETTO MODULE\n"
      "      --override-sql-package PATH[@PACKAGE]  the same, replacing a package\n"
      "                           of that name (the standard library's too)\n"
      "      --analyze-trace-proto-content, --crop-track-events, --extra-checks\n"
      "                           accepted for trace_processor_shell\n"
      "                           compatibility (weft always behaves so)\n"
      "  -h, --help               this help\n"
      "  -v, --version            print the version\n");
  cli_mode_usage_lines(out);
}

static int cli_parse_size(const char *s, uint64_t *out) {
  char *end;
  if (*s < '0' || *s > '9') return -1; /* strtoull would take "-1" */
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) return -1;
  uint64_t mult = 1;
  switch (*end) {
    case 'k': case 'K': mult = 1ull << 10; end++; break;
    case 'm': case 'M': mult = 1ull << 20; end++; break;
    case 'g': case 'G': mult = 1ull << 30; end++; break;
    default: break;
  }
  if (*end || v > UINT64_MAX / mult) return -1;
  *out = v * mult;
  return 0;
}

/* A positive count that fits 32 bits, with an optional K/M/G suffix. */
static int cli_parse_u32(const char *s, uint32_t *out) {
  uint64_t v;
  if (cli_parse_size(s, &v) || v == 0 || v > UINT32_MAX) return -1;
  *out = (uint32_t)v;
  return 0;
}

#define CLI_MAX_THREADS 64

/* --threads N: 0 (one per core) to CLI_MAX_THREADS. */
static int cli_parse_threads(const char *s, uint32_t *out) {
  uint64_t v;
  int digits_only = *s && strspn(s, "0123456789") == strlen(s);
  if (digits_only && cli_parse_size(s, &v) == 0 && v <= CLI_MAX_THREADS) {
    *out = (uint32_t)v;
    return 0;
  }
  fprintf(stderr, "weft: --threads: bad value '%s' (a whole number from 1 to %d, "
                  "or 0 for one per core)\n", s, CLI_MAX_THREADS);
  return -1;
}

typedef struct cli_limit_flag {
  const char *name;
  size_t offset; /* into weft_options */
  int is_u64;
} cli_limit_flag;

static const cli_limit_flag cli_limit_flags[] = {
    {"--max-decompressed", offsetof(weft_options, max_decompressed_bytes), 1},
    {"--max-ratio", offsetof(weft_options, max_compression_ratio), 0},
    {"--max-archive-depth", offsetof(weft_options, max_archive_depth), 0},
    {"--max-members", offsetof(weft_options, max_archive_members), 0},
    {"--max-json-depth", offsetof(weft_options, max_json_depth), 0},
    {"--max-line", offsetof(weft_options, max_line_bytes), 0},
    {"--max-string", offsetof(weft_options, max_string_bytes), 0},
};

/* A resource-limit flag: 1 if `arg` is one (value stored), 0 if not, -1 on
 * a bad value. */
static int cli_parse_limit(weft_options *o, const char *arg, const char *value) {
  for (size_t i = 0; i < sizeof cli_limit_flags / sizeof cli_limit_flags[0]; i++) {
    const cli_limit_flag *f = &cli_limit_flags[i];
    if (strcmp(arg, f->name) != 0) continue;
    char *field = (char *)o + f->offset;
    uint64_t v64;
    uint32_t v32;
    if (!value || (f->is_u64 ? cli_parse_size(value, &v64) || v64 == 0
                             : cli_parse_u32(value, &v32))) {
      fprintf(stderr, "weft: %s: bad value '%s' (a whole number from 1 to %s, "
              "K/M/G suffixes allowed)\n", arg, value ? value : "",
              f->is_u64 ? "2^64-1" : "2^32-1");
      return -1;
    }
    if (f->is_u64) memcpy(field, &v64, sizeof v64);
    else memcpy(field, &v32, sizeof v32);
    return 1;
  }
  return 0;
}

/* --add-sql-package / --override-sql-package PATH[@PACKAGE]: the package
 * name follows the last '@'. */
static int cli_take_sql_package(cli_args *a, const char *value, int override) {
  const char *at = strrchr(value, '@');
  size_t path_len = at ? (size_t)(at - value) : strlen(value);
  char *path = malloc(path_len + 1);
  if (!path) return -1;
  memcpy(path, value, path_len);
  path[path_len] = '\0';
  a->sql_package_paths[a->sql_package_count] = path;
  a->sql_packages[a->sql_package_count++] =
      (weft_sql_package){path, at ? at + 1 : NULL, override};
  return 0;
}

/* The SQL packages are read before any trace, as trace_processor does, so
 * that a bad one fails at once with its reason. */
static int cli_check_sql_packages(const cli_args *a) {
  char msg[1024];
  if (a->sql_package_count == 0 ||
      weft_check_sql_packages(&a->options, msg, sizeof msg) == WEFT_OK)
    return 0;
  fprintf(stderr, "weft: %s\n", msg);
  return -1;
}

static void cli_args_free(cli_args *a) {
  for (size_t i = 0; i < a->sql_package_count; i++) free(a->sql_package_paths[i]);
  free(a->sql_package_paths);
  free(a->sql_packages);
  free(a->traces);
  cli_merge_free(&a->merge);
}

/* Returns 0 to go on, 1 to exit 0 (help/version), -1 on bad usage. */
static int cli_parse(int argc, char **argv, cli_args *a) {
  weft_options_default(&a->options);
  a->traces = calloc((size_t)argc, sizeof *a->traces);
  a->sql_packages = calloc((size_t)argc, sizeof *a->sql_packages);
  a->sql_package_paths = calloc((size_t)argc, sizeof *a->sql_package_paths);
  if (!a->traces || !a->sql_packages || !a->sql_package_paths) return -1;
  int first = 1;
  if (argc > 1 && !strcmp(argv[1], "merge")) {
    a->is_merge = 1;
    first = 2;
  } else if ((first = cli_mode_take_command(&a->mode, argc, argv)) < 0) {
    return -1;
  }
  for (int i = first; i < argc; i++) {
    const char *arg = argv[i];
    int merge_flag = cli_merge_take_flag(&a->merge, argc, argv, &i);
    if (merge_flag == 0 && !a->is_merge)
      merge_flag = cli_mode_take_flag(&a->mode, argc, argv, &i);
    if (merge_flag < 0) return -1;
    if (merge_flag > 0) continue;
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDS_VALUE()                                                     \
  do {                                                                    \
    if (!next) {                                                          \
      fprintf(stderr, "weft: %s needs a value\n", arg);                   \
      return -1;                                                          \
    }                                                                     \
    i++;                                                                  \
  } while (0)
    if (!strcmp(arg, "-q") || !strcmp(arg, "--query-file")) {
      NEEDS_VALUE();
      a->query_file = next;
    } else if (!strcmp(arg, "-Q") || !strcmp(arg, "--query-string")) {
      NEEDS_VALUE();
      a->query_string = next;
    } else if (!strcmp(arg, "--placement")) {
      a->query_string = CLI_PLACEMENT_SQL;
    } else if (a->is_merge && (!strcmp(arg, "-o") || !strcmp(arg, "--output"))) {
      NEEDS_VALUE();
      a->merge_output = next;
    } else if (!strcmp(arg, "--perf-file")) {
      NEEDS_VALUE();
      a->perf_file = next;
    } else if (!strcmp(arg, "--max-memory")) {
      NEEDS_VALUE();
      if (cli_parse_size(next, &a->options.max_memory_bytes)) {
        fprintf(stderr, "weft: --max-memory: bad size '%s' (a whole number of bytes "
                        "from 0, no limit, to 2^64-1, K/M/G suffixes allowed)\n", next);
        return -1;
      }
    } else if (!strncmp(arg, "--max-", 6) && strcmp(arg, "--max-memory")) {
      int r = cli_parse_limit(&a->options, arg, next);
      if (r == 0) {
        fprintf(stderr, "weft: unknown flag %s\n", arg);
        return -1;
      }
      if (r < 0) return -1;
      i++;
    } else if (!strcmp(arg, "--threads")) {
      NEEDS_VALUE();
      if (cli_parse_threads(next, &a->options.threads)) return -1;
    } else if (!strcmp(arg, "--clock-interpolation")) {
      NEEDS_VALUE();
      if (!strcmp(next, "nearest")) {
        a->options.clock_interpolation = WEFT_CLOCK_INTERPOLATION_NEAREST;
      } else if (!strcmp(next, "linear")) {
        a->options.clock_interpolation = WEFT_CLOCK_INTERPOLATION_LINEAR;
      } else {
        fprintf(stderr, "weft: --clock-interpolation: bad value '%s' (nearest or linear)\n",
                next);
        return -1;
      }
    } else if (!strcmp(arg, "--add-sql-package") ||
               !strcmp(arg, "--override-sql-package")) {
      NEEDS_VALUE();
      if (cli_take_sql_package(a, next, arg[2] == 'o')) return -1;
    } else if (!strcmp(arg, "--stats-on-load")) {
      a->stats_on_load = 1;
    } else if (!strcmp(arg, "--quiet")) {
      a->quiet = 1;
    } else if (!strcmp(arg, "--strict")) {
      a->strict = 1;
    } else if (a->is_merge && !strcmp(arg, "--no-validate")) {
      a->no_validate = 1;
    } else if (!strcmp(arg, "--analyze-trace-proto-content") ||
               !strcmp(arg, "--crop-track-events") ||
               !strcmp(arg, "--extra-checks")) {
      /* weft's default behaviour already. */
    } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      if (!cli_mode_usage(&a->mode, stdout)) cli_usage(stdout);
      return 1;
    } else if (!strcmp(arg, "-v") || !strcmp(arg, "--version")) {
      printf("weft %s\n", WEFT_VERSION_STRING);
      return 1;
    } else if (arg[0] == '-' && arg[1]) {
      fprintf(stderr, "weft: unknown flag %s\n", arg);
      return -1;
    } else {
      a->traces[a->trace_count++] = arg;
    }
#undef NEEDS_VALUE
  }
  a->options.sql_packages = a->sql_packages;
  a->options.sql_package_count = a->sql_package_count;
  cli_mode_finish(&a->mode, a->traces, &a->trace_count, &a->query_string,
                  &a->query_file);
  if (a->mode.command == CLI_COMMAND_VIEW && a->trace_count == 0) {
    fprintf(stderr, "weft view: needs at least one trace\n");
    return -1;
  }
  if (cli_mode_check(&a->mode, a->trace_count)) return -1;
  if (a->is_merge && (!a->merge_output || a->trace_count == 0)) {
    fprintf(stderr, "weft merge: needs -o OUT and at least one input\n");
    return -1;
  }
  return 0;
}

char *cli_read_text(const char *path) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len < 2) {
      char *grown = realloc(buf, cap * 2);
      if (!grown) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = grown;
      cap *= 2;
    }
  }
  if (f != stdin) fclose(f);
  if (buf) buf[len] = '\0';
  return buf;
}

static int64_t cli_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Sum of the inputs' sizes, or 0 if one is not a regular file (a pipe). */
static uint64_t cli_total_bytes(const cli_args *a) {
  uint64_t total = 0;
  for (int i = 0; i < a->trace_count; i++) {
    struct stat st;
    if (stat(a->traces[i], &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    total += (uint64_t)st.st_size;
  }
  return total;
}

static int cli_load(weft *w, const cli_args *a) {
  cli_progress *progress = cli_progress_start(
      w, cli_total_bytes(a), (uint32_t)a->trace_count, a->quiet);
  int rc = 0;
  if (cli_merge_load(w, &a->merge, a->traces, a->trace_count) != 0) rc = -1;
  cli_progress_phase(progress, CLI_PROGRESS_PARSING);
  if (rc == 0 && weft_load_finish(w) != WEFT_OK) rc = -1;
  cli_progress_stop(progress);
  return rc;
}

/* The after-load summary of lost data and errors, one line per stat
 * (unless `quiet`); returns the number of such stats. */
static int cli_print_error_stats(weft *w, int quiet) {
  char summary[4096];
  int n = weft_error_stats_summary(w, summary, sizeof summary);
  if (n > 0 && !quiet)
    fprintf(stderr, "weft: %d error stat%s after loading:\n%s", n, n == 1 ? "" : "s",
            summary);
  return n;
}

static int cli_run(weft *w, const cli_args *a, int64_t *query_ns) {
  char *sql = NULL;
  if (a->query_file) {
    sql = cli_read_text(a->query_file);
    if (!sql) {
      fprintf(stderr, "weft: %s: cannot read query file: %s\n", a->query_file,
              strerror(errno));
      return 1;
    }
  }
  const char *text = sql ? sql : a->query_string;
  int64_t start = cli_now_ns();
  const char *source = !a->query_file ? "stdin"
                       : strcmp(a->query_file, "-") == 0 ? "stdin"
                                                          : a->query_file;
  int rc = cli_run_query_csv(w, source, text, stdout);
  *query_ns = cli_now_ns() - start;
  free(sql);
  fflush(stdout);
  if (rc != WEFT_OK) {
    fprintf(stderr, "weft: query failed: %s\n", weft_errmsg(w));
    return 1;
  }
  return 0;
}

/* `weft query --remote NAME`: the SQL runs on a unix-socket session. */
static int cli_remote(const cli_args *a) {
  char *sql = a->query_file ? cli_read_text(a->query_file) : NULL;
  if (a->query_file && !sql) {
    fprintf(stderr, "weft: %s: cannot read query file: %s\n", a->query_file,
            strerror(errno));
    return 1;
  }
  int status = cli_mode_remote_query(&a->mode, sql ? sql : a->query_string);
  free(sql);
  return status;
}

/* Inputs are read in place from read-only mappings: a file that shrinks
 * while weft reads it makes the kernel raise SIGBUS at the first read past
 * its new end. The bytes are gone and nothing can be recovered, but the
 * user gets a message saying so instead of a crash. Async-signal-safe. */
static void cli_on_sigbus(int sig) {
  static const char msg[] = "weft: an input file shrank while it was being read "
                            "(files are read in place); load it again once it is "
                            "complete\n";
  (void)sig;
  ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)n;
  _exit(1);
}

static void cli_catch_sigbus(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = cli_on_sigbus;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGBUS, &sa, NULL);
}

/* One malloc arena for every thread. By default glibc gives each thread
 * that allocates an arena of its own, and what the loading workers free
 * there (a JSON member's scanned event list, once the member is tokenized)
 * stays resident, unusable by the parse's allocations on the main arena,
 * and adds to the peak RSS of a load with many members. The threads
 * allocate seldom on hot paths, so sharing one arena costs no time.
 * Blocks of 4 MiB or more are always mappings of their own: glibc would
 * otherwise raise its mapping threshold (up to 32 MiB) each time such a
 * block is freed, and an importer's growing arrays would then be grown by
 * copying on the heap, faulting 4 KiB pages, instead of being moved with
 * mremap and faulted in as the huge pages they are advised to be
 * (base/alloc.c). */
static void cli_tune_malloc(void) {
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, (int)BASE_HUGE_MIN_BYTES);
#endif
}

int main(int argc, char **argv) {
  cli_tune_malloc();
  cli_catch_sigbus();
  cli_args a = {0};
  int status = 0;
  int parsed = cli_parse(argc, argv, &a);
  if (parsed != 0) {
    cli_args_free(&a);
    if (parsed < 0) fprintf(stderr, "see 'weft --help'\n");
    return parsed > 0 ? 0 : 2;
  }
  if (a.is_merge) {
    cli_merge_checks checks = {&a.options, !a.no_validate, a.strict, a.quiet};
    int rc = cli_merge_write(&a.merge, a.traces, a.trace_count, a.merge_output, &checks);
    cli_args_free(&a);
    return rc == 0 ? 0 : 1;
  }
  if (cli_check_sql_packages(&a) != 0) {
    cli_args_free(&a);
    return 1;
  }
  if (a.mode.remote) {
    status = cli_remote(&a);
    cli_args_free(&a);
    return status;
  }
  if (!cli_mode_daemonize(&a.mode, &status)) { /* the parent of a daemon */
    cli_args_free(&a);
    return status;
  }
  weft *w = NULL;
  if (cli_mode_serving(&a.mode) && a.trace_count == 0) {
    status = cli_mode_serve(&a.mode, NULL, &a.options, NULL, a.quiet);
    cli_args_free(&a);
    return status;
  }
  if (weft_open(&w, &a.options) != WEFT_OK) {
    fprintf(stderr, "weft: cannot create an instance (out of memory)\n");
    cli_args_free(&a);
    return 1;
  }
  int64_t load_start = cli_now_ns(), query_ns = 0;
  if (cli_load(w, &a) != 0) {
    if (*weft_errmsg(w)) fprintf(stderr, "weft: %s\n", weft_errmsg(w)); /* else printed */
    status = 1;
  }
  int64_t load_ns = cli_now_ns() - load_start;
  int interactive = !a.query_file && !a.query_string && !a.mode.export_path;
  int loss_stats = status == 0 ? cli_print_error_stats(w, a.quiet && !a.stats_on_load) : 0;
  if (status == 0 && a.mode.command == CLI_COMMAND_VIEW) {
    status = cli_view_serve(&a.mode, w, &a.options, &a.merge, a.traces, a.trace_count);
    w = NULL; /* the server closed it */
  } else if (status == 0 && cli_mode_serving(&a.mode)) {
    status = cli_mode_serve(&a.mode, w, &a.options, a.traces[0], a.quiet);
    w = NULL; /* the server closed it */
  } else if (status == 0) {
    int queries = a.query_file || a.query_string;
    status = interactive ? cli_shell(w) : queries ? cli_run(w, &a, &query_ns) : 0;
    if (status == 0 && a.mode.export_path) status = cli_mode_export(&a.mode, w);
    if (status == 0 && a.mode.then_interactive) status = cli_shell(w);
  }
  if (status == 0 && a.strict && loss_stats > 0) {
    fprintf(stderr, "weft: --strict: loading lost data or met errors (%d stat%s)\n",
            loss_stats, loss_stats == 1 ? "" : "s");
    status = 1;
  }
  if (a.perf_file) {
    FILE *f = fopen(a.perf_file, "w");
    if (f) {
      fprintf(f, "%lld,%lld\n", (long long)load_ns, (long long)query_ns);
      fclose(f);
    } else {
      fprintf(stderr, "weft: %s: cannot write perf file\n", a.perf_file);
    }
  }
  weft_close(w);
  cli_args_free(&a);
  return status;
}
