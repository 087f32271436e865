/* Logging to stderr, filtered by HCL_LOG (default: error). HCL_LOG takes a level's name, error, warn, info or debug
 * (any case), or its number, 0 to 3 (hcl_log_level); any other value is reported once on stderr, naming the values
 * accepted, and leaves the default. */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static pthread_once_t level_once = PTHREAD_ONCE_INIT;
static int log_level = HCL_LOG_ERROR;
static const char *const level_names[] = {"error", "warn", "info", "debug"};

static void read_level(void) {
    const char *env = getenv("HCL_LOG");
    if (!env || !*env) return;
    for (int i = 0; i < 4; i++)
        if (strcasecmp(env, level_names[i]) == 0 || (env[0] == (char)('0' + i) && env[1] == '\0')) {
            log_level = i;
            return;
        }
    fprintf(stderr,
            "hcl[core] warn: HCL_LOG=\"%.64s\" is not a log level; it takes error, warn, info or debug, or 0 to 3; "
            "logging errors only\n",
            env);
}

void hcl__vlog(hcl_log_level level, const char *component, const char *fmt, va_list ap) {
    pthread_once(&level_once, read_level);
    if ((unsigned)level > HCL_LOG_DEBUG) level = HCL_LOG_DEBUG; /* a driver's level is not trusted to be one */
    if ((int)level > log_level) return;
    char line[4096];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "hcl[%s] %s: %s\n", component ? component : "core", level_names[level], line);
}

void hcl__log(hcl_log_level level, const char *component, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    hcl__vlog(level, component, fmt, ap);
    va_end(ap);
}
