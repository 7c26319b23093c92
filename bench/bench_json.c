/* Throughput of the JSON tokenizer over a generated ~100 MB Chrome-style
 * JSON trace held in memory. Usage: bench_json [megabytes] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/base.h"
#include "base/json_tokenizer.h"

static double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_generate(base_buf *b, size_t target) {
  static const char *phases[] = {"X", "B", "E", "i", "C"};
  uint64_t x = 0x2545f4914f6cdd1dULL;
  int rc = base_buf_append(b, "{\"traceEvents\":[\n", 17);
  for (uint64_t i = 0; rc == 0 && b->len < target; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    rc = base_buf_appendf(
        b,
        "%s{\"name\":\"slice_%u\",\"cat\":\"toplevel,ipc\",\"ph\":\"%s\","
        "\"ts\":%llu.%03u,\"dur\":%u.%u,\"pid\":%u,\"tid\":%u,"
        "\"args\":{\"src_file\":\"../../base/task/%s.cc\",\"src_func\":"
        "\"Run\\u0041\",\"count\":%u,\"ratio\":%u.25e-3,\"ok\":true}}\n",
        i ? "," : "", (unsigned)(x % 5000), phases[x % 5],
        (unsigned long long)(1000000 + i * 17), (unsigned)(x % 1000),
        (unsigned)(x % 900), (unsigned)(x % 10), (unsigned)(x % 64) + 1,
        (unsigned)(x >> 40) % 3000, (x & 1) ? "sequence_manager" : "thread_pool",
        (unsigned)(x % 100000), (unsigned)(x % 97));
  }
  return rc ? rc : base_buf_append(b, "]}\n", 3);
}

int main(int argc, char **argv) {
  size_t mb = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 100;
  base_buf doc;
  base_buf_init(&doc, 0);
  if (bench_generate(&doc, mb << 20)) {
    fprintf(stderr, "bench_json: out of memory\n");
    return 1;
  }
  double size_mb = (double)doc.len / (1 << 20);
  base_error err = {0};
  for (int round = 0; round < 3; round++) {
    json_tokenizer t;
    json_token tok;
    uint64_t tokens = 0;
    double sum = 0;
    double start = bench_now();
    json_tokenizer_init(&t, doc.data, doc.len, NULL, &err);
    int rc;
    while ((rc = json_next(&t, &tok, &err)) == 0 && tok.type != JSON_TOK_EOF) {
      tokens++;
      if (tok.type == JSON_TOK_NUMBER) sum += tok.d;
    }
    double tokenize_s = bench_now() - start;
    json_tokenizer_free(&t);
    if (rc) {
      fprintf(stderr, "bench_json: %s\n", err.message);
      return 1;
    }
    start = bench_now();
    json_tokenizer_init(&t, doc.data, doc.len, NULL, &err);
    rc = json_skip_value(&t, &err);
    double skip_s = bench_now() - start;
    json_tokenizer_free(&t);
    if (rc) {
      fprintf(stderr, "bench_json: %s\n", err.message);
      return 1;
    }
    printf("round %d: %.1f MB, %llu tokens: tokenize %.0f MB/s (%.0f Mtok/s), "
           "skip_value %.0f MB/s [checksum %.3g]\n",
           round, size_mb, (unsigned long long)tokens, size_mb / tokenize_s,
           (double)tokens / tokenize_s / 1e6, size_mb / skip_s, sum);
  }
  base_buf_free(&doc);
  return 0;
}
