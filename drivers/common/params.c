/* Kernel parameters from source and PTX text (params.h). Everything here reads within [text, text + length): the
 * texts come from users and need not be terminated. */
#include "params.h"

#include <ctype.h>
#include <string.h>

#define HCL_KIT_PARAMS_COMPARE 65 /* parameters of a later declaration compared with the first */

/* ---------------------------------------------------------------------------------------------------------
 * Type sizes
 * ------------------------------------------------------------------------------------------------------- */
typedef struct size_entry {
    const char *name;
    uint32_t size;
} size_entry;

static const size_entry k_opencl_scalars[] = {
    {"char", 1},          {"uchar", 1}, {"unsigned char", 1}, {"short", 2},    {"ushort", 2}, {"unsigned short", 2},
    {"int", 4},           {"uint", 4},  {"unsigned int", 4},  {"unsigned", 4}, {"long", 8},   {"ulong", 8},
    {"unsigned long", 8}, {"float", 4}, {"double", 8},        {"half", 2},
};
static const size_entry k_cuda_scalars[] = {
    {"char", 1},
    {"unsigned char", 1},
    {"short", 2},
    {"short int", 2},
    {"unsigned short", 2},
    {"unsigned short int", 2},
    {"int", 4},
    {"unsigned", 4},
    {"unsigned int", 4},
    {"long", 8},
    {"long int", 8},
    {"unsigned long", 8},
    {"unsigned long int", 8},
    {"long long", 8},
    {"long long int", 8},
    {"unsigned long long", 8},
    {"unsigned long long int", 8},
    {"float", 4},
    {"double", 8},
    {"bool", 1},
    {"__half", 2},
    {"half", 2},
    {"__nv_bfloat16", 2},
    {"__hip_bfloat16", 2},
    {"size_t", 8},
    {"ptrdiff_t", 8},
    {"int8_t", 1},
    {"uint8_t", 1},
    {"int16_t", 2},
    {"uint16_t", 2},
    {"int32_t", 4},
    {"uint32_t", 4},
    {"int64_t", 8},
    {"uint64_t", 8},
};
/* Element types of vectors (OpenCL float4, CUDA float4 / longlong2). */
static const size_entry k_vector_bases[] = {
    {"char", 1},  {"uchar", 1}, {"short", 2}, {"ushort", 2}, {"half", 2},     {"int", 4},       {"uint", 4},
    {"float", 4}, {"long", 8},  {"ulong", 8}, {"double", 8}, {"longlong", 8}, {"ulonglong", 8},
};

static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int word_is(const char *w, size_t n, const char *s) { return strlen(s) == n && memcmp(w, s, n) == 0; }

/* Words that qualify a type without changing its size. */
static int is_qualifier(const char *w, size_t n) {
    return word_is(w, n, "const") || word_is(w, n, "volatile") || word_is(w, n, "signed") ||
           word_is(w, n, "__restrict__") || word_is(w, n, "restrict") || word_is(w, n, "__grid_constant__") ||
           word_is(w, n, "__private") || word_is(w, n, "private");
}

static uint32_t lookup(const size_entry *t, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0) return t[i].size;
    return 0;
}

static uint32_t vector_size(const char *name, hcl_kit_dialect dialect) {
    size_t len = strlen(name), d = len;
    while (d > 0 && isdigit((unsigned char)name[d - 1])) d--;
    if (d == len || d == 0 || len - d > 2) return 0;
    unsigned lanes = 0;
    for (size_t i = d; i < len; i++) lanes = lanes * 10 + (unsigned)(name[i] - '0');
    char base[16];
    if (d >= sizeof base) return 0;
    memcpy(base, name, d);
    base[d] = '\0';
    uint32_t elem = lookup(k_vector_bases, sizeof k_vector_bases / sizeof k_vector_bases[0], base);
    if (!elem) return 0;
    if (dialect == HCL_KIT_DIALECT_OPENCL) {
        if (strcmp(base, "longlong") == 0 || strcmp(base, "ulonglong") == 0) return 0;
        if (lanes != 2 && lanes != 3 && lanes != 4 && lanes != 8 && lanes != 16) return 0;
        return elem * (lanes == 3 ? 4 : lanes); /* a 3-vector takes the room of a 4-vector */
    }
    if (strcmp(base, "half") == 0 || lanes < 1 || lanes > 4) return 0;
    return elem * lanes;
}

uint32_t hcl__kit_type_size(const char *type, size_t len, hcl_kit_dialect dialect) {
    char norm[64];
    size_t used = 0, i = 0;
    while (i < len) {
        if (!is_ident(type[i])) {
            if (!isspace((unsigned char)type[i])) return 0; /* a '*', '<', ':' ...: not a plain scalar */
            i++;
            continue;
        }
        size_t start = i;
        while (i < len && is_ident(type[i])) i++;
        if (is_qualifier(type + start, i - start)) continue;
        if (used + (used ? 1 : 0) + (i - start) >= sizeof norm) return 0;
        if (used) norm[used++] = ' ';
        memcpy(norm + used, type + start, i - start);
        used += i - start;
    }
    norm[used] = '\0';
    if (!used) return 0;
    uint32_t size = dialect == HCL_KIT_DIALECT_OPENCL
                        ? lookup(k_opencl_scalars, sizeof k_opencl_scalars / sizeof k_opencl_scalars[0], norm)
                        : lookup(k_cuda_scalars, sizeof k_cuda_scalars / sizeof k_cuda_scalars[0], norm);
    return size ? size : vector_size(norm, dialect);
}

void hcl__kit_param_set(hcl_driver_param *p, hcl_driver_param_kind kind, uint32_t size, const char *name,
                        size_t name_len, const char *type, size_t type_len) {
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->size = size;
    if (name && name_len) memcpy(p->name, name, name_len < sizeof p->name - 1 ? name_len : sizeof p->name - 1);
    if (type && type_len) memcpy(p->type, type, type_len < sizeof p->type - 1 ? type_len : sizeof p->type - 1);
}

/* ---------------------------------------------------------------------------------------------------------
 * CUDA / HIP source
 * ------------------------------------------------------------------------------------------------------- */
/* The index after the comments, string and character literals and spaces at i (or i when none). */
static size_t skip_space(const char *s, size_t n, size_t i) {
    for (;;) {
        if (i < n && isspace((unsigned char)s[i])) {
            i++;
        } else if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
            while (i < n && s[i] != '\n') i++;
        } else if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) i++;
            i = i + 2 <= n ? i + 2 : n;
        } else {
            return i;
        }
    }
}

/* The index after a literal that starts at i (a quote), bounded by n. */
static size_t skip_literal(const char *s, size_t n, size_t i) {
    const char quote = s[i++];
    while (i < n && s[i] != quote && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
    return i < n ? i + 1 : n;
}

/* Parse one parameter's text [a, b) into *p. Returns 0 when it makes the whole list unknowable (variadic). */
static int parse_cuda_param(const char *s, size_t a, size_t b, hcl_driver_param *p) {
    while (a < b && isspace((unsigned char)s[a])) a++;
    while (b > a && isspace((unsigned char)s[b - 1])) b--;
    int pointer = 0, odd = 0;
    size_t name_at = 0, name_len = 0, last_word = 0, last_len = 0, words = 0;
    for (size_t i = a; i < b;) {
        if (is_ident(s[i])) {
            size_t start = i;
            while (i < b && is_ident(s[i])) i++;
            last_word = start, last_len = i - start, words++;
            continue;
        }
        if (s[i] == '.') return 0; /* ... */
        if (s[i] == '*') pointer = 1;
        if (s[i] == '[') {
            pointer = 1; /* an array parameter is a pointer */
            if (!name_len) name_at = last_word, name_len = last_len;
        }
        if (s[i] == '&' || s[i] == '<' || s[i] == '=' || s[i] == '(' || s[i] == ':' || s[i] == '{') odd = 1;
        i++;
    }
    if (!name_len && words >= 2) name_at = last_word, name_len = last_len;
    /* a lone type ("int") has no name; so has "unsigned int" */
    if (name_len && hcl__kit_type_size(s + name_at, name_len, HCL_KIT_DIALECT_CUDA) && !pointer) name_len = 0;
    if (name_len && (word_is(s + name_at, name_len, "int") || word_is(s + name_at, name_len, "long") ||
                     word_is(s + name_at, name_len, "short") || word_is(s + name_at, name_len, "char")))
        name_len = 0;
    size_t type_end = name_len ? name_at : b;
    while (type_end > a && isspace((unsigned char)s[type_end - 1])) type_end--;
    const char *name = name_len ? s + name_at : NULL;
    if (odd) {
        hcl__kit_param_set(p, HCL_DRIVER_PARAM_UNKNOWN, 0, name, name_len, s + a, b - a);
    } else if (pointer) {
        hcl__kit_param_set(p, HCL_DRIVER_PARAM_BUFFER, 0, name, name_len, s + a, (name_len ? name_at : b) - a);
        /* "float *__restrict__ x": the type text ends before the name */
    } else {
        uint32_t size = hcl__kit_type_size(s + a, type_end - a, HCL_KIT_DIALECT_CUDA);
        hcl__kit_param_set(p, size ? HCL_DRIVER_PARAM_VALUE : HCL_DRIVER_PARAM_UNKNOWN, size, name, name_len, s + a,
                           type_end - a);
    }
    /* trim the type text's trailing spaces */
    size_t t = strlen(p->type);
    while (t > 0 && isspace((unsigned char)p->type[t - 1])) p->type[--t] = '\0';
    return 1;
}

/* Parse the list between the parentheses at s[open] and its match. Returns 1 and the count, or 0. */
static int parse_cuda_list(const char *s, size_t n, size_t open, hcl_driver_param *out, uint32_t max,
                           uint32_t *out_count) {
    size_t i = open + 1, start = i;
    int depth = 0;
    uint32_t count = 0;
    int any = 0;
    for (; i < n; i++) {
        const char c = s[i];
        if (c == '"' || c == '\'') return 0;
        if (c == '/' && i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '*')) return 0; /* kept simple: unknown */
        if (c == '#') return 0;                                                      /* a directive inside */
        if (c == '(' || c == '[' || c == '<' || c == '{') depth++;
        if (c == ')' || c == ']' || c == '>' || c == '}') {
            if (c == ')' && depth == 0) break;
            if (--depth < 0) return 0;
        }
        if (!isspace((unsigned char)c) && c != ',') any = 1;
        if (c == ',' && depth == 0) {
            hcl_driver_param p;
            if (!parse_cuda_param(s, start, i, &p)) return 0;
            if (count < max) out[count] = p;
            count++;
            start = i + 1;
        }
    }
    if (i >= n) return 0;
    if (any) {
        /* "(void)" declares none */
        size_t a = skip_space(s, i, start), b = i;
        while (b > a && isspace((unsigned char)s[b - 1])) b--;
        if (!(count == 0 && word_is(s + a, b - a, "void"))) {
            hcl_driver_param p;
            if (!parse_cuda_param(s, start, i, &p)) return 0;
            if (count < max) out[count] = p;
            count++;
        }
    }
    *out_count = count;
    return 1;
}

static int same_params(const hcl_driver_param *a, const hcl_driver_param *b, uint32_t count) {
    for (uint32_t i = 0; i < count; i++)
        if (a[i].kind != b[i].kind || a[i].size != b[i].size) return 0;
    return 1;
}

int hcl__kit_cuda_params(const char *s, size_t n, const char *kernel, hcl_driver_param *out, uint32_t max,
                         uint32_t *out_count) {
    const size_t klen = strlen(kernel);
    int found = 0, template_pending = 0;
    uint32_t count = 0;
    hcl_driver_param again[HCL_KIT_PARAMS_COMPARE]; /* a later declaration, compared with the first (in out[]) */
    for (size_t i = 0; i < n;) {
        size_t j = skip_space(s, n, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (s[i] == '"' || s[i] == '\'') {
            i = skip_literal(s, n, i);
            continue;
        }
        if (!is_ident(s[i])) {
            if (s[i] == ';' || s[i] == '{' || s[i] == '}') template_pending = 0;
            i++;
            continue;
        }
        size_t start = i;
        while (i < n && is_ident(s[i])) i++;
        if (word_is(s + start, i - start, "template")) template_pending = 1;
        if (!word_is(s + start, i - start, "__global__")) continue;
        /* __global__ [__launch_bounds__(...)] [void] [qualifiers] name ( */
        size_t k = i, name_at = 0, name_len = 0;
        for (int guard = 0; guard < 16; guard++) {
            k = skip_space(s, n, k);
            if (k >= n || !is_ident(s[k])) break;
            size_t w = k;
            while (k < n && is_ident(s[k])) k++;
            size_t after = skip_space(s, n, k);
            if (word_is(s + w, k - w, "__launch_bounds__") && after < n && s[after] == '(') {
                int depth = 0;
                for (k = after; k < n; k++) {
                    if (s[k] == '(') depth++;
                    if (s[k] == ')' && --depth == 0) break;
                }
                k = k < n ? k + 1 : n;
                continue;
            }
            if (after < n && s[after] == '(') {
                name_at = w, name_len = k - w, k = after;
                break;
            }
        }
        if (!name_len || klen != name_len || memcmp(s + name_at, kernel, klen) != 0) continue;
        if (template_pending || (k < n && s[k] != '(')) return 0;
        hcl_driver_param *dst = found ? again : out;
        uint32_t this_count = 0, room = found ? HCL_KIT_PARAMS_COMPARE : max;
        if (!parse_cuda_list(s, n, k, dst, room, &this_count)) return 0;
        if (!found) {
            found = 1;
            count = this_count;
        } else {
            uint32_t cmp = count < max ? count : max;
            if (cmp > HCL_KIT_PARAMS_COMPARE) cmp = HCL_KIT_PARAMS_COMPARE;
            if (this_count != count || !same_params(out, again, cmp)) return 0;
        }
        i = k + 1;
    }
    if (found) *out_count = count;
    return found;
}

/* ---------------------------------------------------------------------------------------------------------
 * PTX
 * ------------------------------------------------------------------------------------------------------- */
/* The next whitespace/comma/paren-delimited token at or after *i, within n: its start and length (0 at the end). */
static size_t ptx_token(const char *s, size_t n, size_t *i) {
    size_t k = skip_space(s, n, *i);
    size_t start = k;
    if (k < n && (s[k] == ',' || s[k] == '(' || s[k] == ')')) {
        *i = k + 1;
        return 1;
    }
    while (k < n && !isspace((unsigned char)s[k]) && s[k] != ',' && s[k] != '(' && s[k] != ')') k++;
    *i = k;
    return k - start;
}

/* Bytes of a PTX scalar type (.u64 8, .b8 1, .f16 2), 0 when not one. */
static uint32_t ptx_type_size(const char *t, size_t len) {
    if (len < 3 || t[0] != '.' || !strchr("usbf", t[1])) return 0;
    unsigned bits = 0;
    for (size_t i = 2; i < len; i++) {
        if (!isdigit((unsigned char)t[i]) || bits > 1000) return 0;
        bits = bits * 10 + (unsigned)(t[i] - '0');
    }
    return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? bits / 8 : 0;
}

int hcl__kit_ptx_params(const char *s, size_t n, const char *kernel, hcl_driver_param *out, uint32_t max,
                        uint32_t *out_count) {
    const size_t klen = strlen(kernel);
    for (size_t i = 0; i + 6 <= n; i++) {
        if (memcmp(s + i, ".entry", 6) != 0 || (i + 6 < n && is_ident(s[i + 6]))) continue;
        size_t k = i + 6, tl;
        size_t ts = skip_space(s, n, k);
        tl = ptx_token(s, n, &k);
        if (tl != klen || memcmp(s + ts, kernel, klen) != 0) continue;
        ts = skip_space(s, n, k);
        if (ptx_token(s, n, &k) != 1 || s[ts] != '(') return 0;
        uint32_t count = 0;
        for (;;) { /* one parameter: .param <directives and type> <name>[<count>] then ',' or ')' */
            ts = skip_space(s, n, k);
            tl = ptx_token(s, n, &k);
            if (tl == 0) return 0;
            if (tl == 1 && s[ts] == ')') break;
            if (tl != 6 || memcmp(s + ts, ".param", 6) != 0) return 0;
            int pointer = 0;
            uint32_t elem = 0;
            size_t type_at = 0, type_len = 0;
            for (;;) {
                ts = skip_space(s, n, k);
                tl = ptx_token(s, n, &k);
                if (tl == 0 || (tl == 1 && (s[ts] == ',' || s[ts] == ')' || s[ts] == '('))) return 0;
                if (s[ts] != '.') break; /* the name */
                if (tl == 4 && memcmp(s + ts, ".ptr", 4) == 0) pointer = 1;
                if (tl == 6 && memcmp(s + ts, ".align", 6) == 0) (void)ptx_token(s, n, &k);
                uint32_t sz = ptx_type_size(s + ts, tl);
                if (sz) elem = sz, type_at = ts, type_len = tl;
            }
            /* the name, maybe with [N] */
            uint32_t size = elem;
            size_t name_len = tl;
            const char *br = memchr(s + ts, '[', tl);
            if (br) {
                name_len = (size_t)(br - (s + ts));
                unsigned long lanes = 0;
                for (const char *c = br + 1; c < s + ts + tl && *c != ']'; c++) {
                    if (!isdigit((unsigned char)*c) || lanes > 1u << 20) return 0;
                    lanes = lanes * 10 + (unsigned long)(*c - '0');
                }
                size = (uint32_t)(elem * lanes);
            }
            hcl_driver_param p;
            hcl__kit_param_set(&p, pointer ? HCL_DRIVER_PARAM_BUFFER : HCL_DRIVER_PARAM_UNKNOWN, pointer ? 0 : size,
                               s + ts, name_len, type_len ? s + type_at : NULL, type_len);
            if (count < max) out[count] = p;
            count++;
            ts = skip_space(s, n, k);
            tl = ptx_token(s, n, &k);
            if (tl == 1 && s[ts] == ')') break;
            if (tl != 1 || s[ts] != ',') return 0;
        }
        *out_count = count;
        return 1;
    }
    return 0;
}
