/* Kernel parameters from SPIR-V words (spirv_params.h). Two passes over the instruction stream: types and names,
 * then the entry point's function and its parameters. Every instruction is checked to lie inside the module and
 * every id against the header's bound before it is used. */
#include "spirv_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPV_MAGIC 0x07230203u
#define SPV_MAX_BOUND (1u << 22) /* ids; a larger bound is refused rather than allocated for */

enum {
    OP_NAME = 5,
    OP_ENTRY_POINT = 15,
    OP_TYPE_INT = 21,
    OP_TYPE_FLOAT = 22,
    OP_TYPE_VECTOR = 23,
    OP_TYPE_POINTER = 32,
    OP_FUNCTION = 54,
    OP_FUNCTION_PARAMETER = 55,
    OP_FUNCTION_END = 56,
};
enum { SC_UNIFORM_CONSTANT = 0, SC_WORKGROUP = 4, SC_CROSS_WORKGROUP = 5, SC_FUNCTION = 7 };

typedef enum { T_NONE = 0, T_INT, T_FLOAT, T_VECTOR, T_POINTER } type_kind;

typedef struct spv_id {
    uint8_t kind;      /* type_kind */
    uint8_t storage;   /* T_POINTER: its storage class (clamped to 255) */
    uint16_t lanes;    /* T_VECTOR */
    uint32_t bits;     /* T_INT, T_FLOAT: width; T_VECTOR: the component type's id */
    uint32_t name;     /* word index of its OpName string + 1 (0: none) */
    uint32_t name_end; /* word index past that OpName instruction */
} spv_id;

/* Copy the literal string at words [at, end) into buf (bounded by both). */
static void copy_string(const uint32_t *w, uint32_t at, uint32_t end, char *buf, size_t size) {
    size_t n = 0;
    for (uint32_t i = at; i < end && n + 1 < size; i++)
        for (int b = 0; b < 4 && n + 1 < size; b++) {
            char c = (char)((w[i] >> (8 * b)) & 0xff);
            if (!c) goto done;
            buf[n++] = c;
        }
done:
    buf[n] = '\0';
}

/* Whether the literal string at words [at, end) equals s (and is terminated inside the instruction). */
static int string_is(const uint32_t *w, uint32_t at, uint32_t end, const char *s) {
    size_t len = strlen(s), k = 0;
    for (uint32_t i = at; i < end; i++)
        for (int b = 0; b < 4; b++, k++) {
            char c = (char)((w[i] >> (8 * b)) & 0xff);
            if (k == len) return c == '\0';
            if (c != s[k]) return 0;
        }
    return 0;
}

/* Bytes of a scalar or vector type id (0: not one), and its text. */
static uint32_t value_size(const spv_id *ids, uint32_t bound, uint32_t id, char *type, size_t type_size) {
    if (id >= bound) return 0;
    const spv_id *t = &ids[id];
    if (t->kind == T_INT || t->kind == T_FLOAT) {
        if (t->bits % 8 || t->bits == 0 || t->bits > 64) return 0;
        snprintf(type, type_size, "%c%u", t->kind == T_INT ? 'i' : 'f', t->bits);
        return t->bits / 8;
    }
    if (t->kind == T_VECTOR) {
        char elem[16];
        uint32_t e = value_size(ids, bound, t->bits, elem, sizeof elem);
        if (!e || ids[t->bits].kind == T_VECTOR || t->lanes < 2 || t->lanes > 16) return 0;
        snprintf(type, type_size, "%sx%u", elem, (unsigned)t->lanes);
        return e * (t->lanes == 3 ? 4u : t->lanes);
    }
    return 0;
}

static void describe(const uint32_t *w, const spv_id *ids, uint32_t bound, uint32_t type_id, uint32_t param_id,
                     hcl_driver_param *p) {
    char name[64] = "", type[48] = "";
    hcl_driver_param_kind kind = HCL_DRIVER_PARAM_UNKNOWN;
    uint32_t size = 0;
    if (param_id < bound && ids[param_id].name)
        copy_string(w, ids[param_id].name - 1, ids[param_id].name_end, name, sizeof name);
    if (type_id < bound && ids[type_id].kind == T_POINTER) {
        switch (ids[type_id].storage) {
        case SC_CROSS_WORKGROUP: kind = HCL_DRIVER_PARAM_BUFFER, snprintf(type, sizeof type, "global*"); break;
        case SC_UNIFORM_CONSTANT: kind = HCL_DRIVER_PARAM_BUFFER, snprintf(type, sizeof type, "constant*"); break;
        case SC_WORKGROUP: kind = HCL_DRIVER_PARAM_LOCAL, snprintf(type, sizeof type, "local*"); break;
        case SC_FUNCTION: kind = HCL_DRIVER_PARAM_VALUE, snprintf(type, sizeof type, "struct (by value)"); break;
        default: break;
        }
    } else if ((size = value_size(ids, bound, type_id, type, sizeof type)) != 0) {
        kind = HCL_DRIVER_PARAM_VALUE;
    }
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->size = size;
    memcpy(p->name, name, sizeof p->name < sizeof name ? sizeof p->name : sizeof name);
    p->name[sizeof p->name - 1] = '\0';
    memcpy(p->type, type, sizeof type < sizeof p->type ? sizeof type : sizeof p->type);
    p->type[sizeof p->type - 1] = '\0';
}

int hcl__ze_spirv_params(const void *spirv, size_t size, const char *kernel, hcl_driver_param *out, uint32_t max,
                         uint32_t *out_count) {
    if (!spirv || size < 20 || size % 4) return 0;
    const size_t n_words = size / 4;
    if (n_words > UINT32_MAX) return 0;
    const uint32_t n = (uint32_t)n_words;
    uint32_t *w = malloc(size); /* aligned words (the caller's bytes may sit at any address) */
    if (!w) return 0;
    memcpy(w, spirv, size);
    int ok = 0;
    spv_id *ids = NULL;
    const uint32_t bound = w[3];
    if (w[0] != SPV_MAGIC || bound == 0 || bound > SPV_MAX_BOUND || bound / 4 > n) goto done;
    ids = calloc(bound, sizeof *ids);
    if (!ids) goto done;

    /* pass 1: types, names, the entry point's function id, and the id of a function named as the kernel (llvm-spirv
     * makes the entry point a wrapper that calls it; its parameters carry the names) */
    uint32_t fn_id = 0, named_id = 0;
    for (uint32_t i = 5; i < n;) {
        const uint32_t count = w[i] >> 16, op = w[i] & 0xffff;
        if (count == 0 || count > n - i) goto done;
        const uint32_t end = i + count, id = count > 1 ? w[i + 1] : 0;
        if (op == OP_NAME && count >= 3 && id < bound) {
            ids[id].name = i + 2 + 1;
            ids[id].name_end = end;
            if (string_is(w, i + 2, end, kernel)) named_id = id;
        } else if (op == OP_ENTRY_POINT && count >= 4 && string_is(w, i + 3, end, kernel)) {
            fn_id = w[i + 2];
        } else if ((op == OP_TYPE_INT || op == OP_TYPE_FLOAT) && count >= 3 && id < bound) {
            ids[id].kind = op == OP_TYPE_INT ? T_INT : T_FLOAT;
            ids[id].bits = w[i + 2];
        } else if (op == OP_TYPE_VECTOR && count >= 4 && id < bound) {
            ids[id].kind = T_VECTOR;
            ids[id].bits = w[i + 2];
            ids[id].lanes = (uint16_t)(w[i + 3] > 0xffff ? 0 : w[i + 3]);
        } else if (op == OP_TYPE_POINTER && count >= 4 && id < bound) {
            ids[id].kind = T_POINTER;
            ids[id].storage = (uint8_t)(w[i + 2] > 255 ? 255 : w[i + 2]);
        }
        i = end;
    }
    if (!fn_id) goto done;

    /* pass 2: the function's parameters (and the named function's, for names) */
    int in_fn = 0, found = 0;
    uint32_t params = 0, named = 0, named_params[64];
    for (uint32_t i = 5; i < n;) {
        const uint32_t count = w[i] >> 16, op = w[i] & 0xffff, end = i + count;
        if (op == OP_FUNCTION && count >= 5) {
            in_fn = w[i + 2] == fn_id ? 1 : w[i + 2] == named_id ? 2 : 0;
            found |= in_fn == 1;
        } else if (in_fn == 1 && op == OP_FUNCTION_PARAMETER && count >= 3) {
            if (params < max) describe(w, ids, bound, w[i + 1], w[i + 2], &out[params]);
            params++;
        } else if (in_fn == 2 && op == OP_FUNCTION_PARAMETER && count >= 3) {
            if (named < 64) named_params[named] = w[i + 2];
            named++;
        } else {
            in_fn = 0; /* past the parameters: the function's body or its end */
        }
        i = end;
    }
    if (found) {
        for (uint32_t p = 0; named == params && p < params && p < max && p < 64; p++) {
            const uint32_t id = named_params[p];
            if (!out[p].name[0] && id < bound && ids[id].name)
                copy_string(w, ids[id].name - 1, ids[id].name_end, out[p].name, sizeof out[p].name);
        }
        *out_count = params;
        ok = 1;
    }
done:
    free(ids);
    free(w);
    return ok;
}
