/* Logging to stderr, filtered by HCL_LOG=error|warn|info|debug (default: error). */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static pthread_once_t level_once = PTHREAD_ONCE_INIT;
static int log_level = HCL_LOG_ERROR;

static void read_level(void) {
    const char *env = getenv("HCL_LOG");
    if (!env || !*env) return;
    static const char *const names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++)
        if (strcasecmp(env, names[i]) == 0) log_level = i;
    if (strcmp(env, "1") == 0) log_level = HCL_LOG_DEBUG;
}

void hcl__vlog(hcl_log_level level, const char *component, const char *fmt, va_list ap) {
    pthread_once(&level_once, read_level);
    if ((int)level > log_level) return;
    static const char *const tags[] = {"error", "warn", "info", "debug"};
    char line[4096];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "hcl[%s] %s: %s\n", component ? component : "core", tags[level], line);
}

void hcl__log(hcl_log_level level, const char *component, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    hcl__vlog(level, component, fmt, ap);
    va_end(ap);
}
