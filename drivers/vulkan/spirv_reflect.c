/* Compute-shader reflection from SPIR-V words (spirv_reflect.h): one pass collects types, constants, variables,
 * decorations, capabilities and the entry point; then the entry point's storage buffers and push constants are read.
 * Every instruction is checked to lie inside the module and every id against the header's bound. */
#include "spirv_reflect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPV_MAGIC 0x07230203u
#define SPV_MAX_BOUND (1u << 22)

enum {
    OP_ENTRY_POINT = 15,
    OP_EXECUTION_MODE = 16,
    OP_CAPABILITY = 17,
    OP_TYPE_INT = 21,
    OP_TYPE_FLOAT = 22,
    OP_TYPE_VECTOR = 23,
    OP_TYPE_ARRAY = 28,
    OP_TYPE_STRUCT = 30,
    OP_TYPE_POINTER = 32,
    OP_CONSTANT = 43,
    OP_VARIABLE = 59,
    OP_DECORATE = 71,
    OP_MEMBER_DECORATE = 72,
};
enum { SC_UNIFORM = 2, SC_PUSH_CONSTANT = 9, SC_STORAGE_BUFFER = 12 };
enum { DEC_BLOCK = 2, DEC_BUFFER_BLOCK = 3, DEC_BUILTIN = 11, DEC_BINDING = 33, DEC_SET = 34, DEC_OFFSET = 35 };
enum { CAP_SHADER = 1, CAP_KERNEL = 6, CAP_FLOAT16 = 9, CAP_INT16 = 22, CAP_SB16 = 4433, CAP_UB16 = 4434 };
enum { BUILTIN_WORKGROUP_SIZE = 25, MODE_LOCAL_SIZE = 17, MODEL_GLCOMPUTE = 5 };

typedef struct spv_id {
    uint16_t op; /* the instruction that defined it */
    uint16_t buffer_block;
    uint32_t a, b, c;      /* int/float: width; vector: comp, n; array: elem, length id; pointer: storage, type;
                           * constant: value; variable: pointer type, storage; struct: word of its members, count */
    uint32_t binding, set; /* decorations (+1; 0: none) */
} spv_id;

static int fail(char *why, size_t why_size, const char *text) {
    snprintf(why, why_size, "%s", text);
    return 0;
}

int hcl__vk_spirv_is_shader(const void *spirv, size_t size) {
    const uint32_t *w = spirv;
    if (!spirv || size < 20 || size % 4 || w[0] != SPV_MAGIC) return 0;
    const size_t n = size / 4;
    for (size_t i = 5; i < n;) {
        const uint32_t len = w[i] >> 16, op = w[i] & 0xffff;
        if (len == 0 || i + len > n) return 0;
        if (op == OP_CAPABILITY && len >= 2 && w[i + 1] == CAP_SHADER) return 1;
        if (op != OP_CAPABILITY && op != 11 /* OpExtInstImport */ && op != 10 /* OpExtension */) break;
        i += len;
    }
    return 0;
}

/* Bytes of type `t` (0 unknown), and its name into `name`. */
static uint32_t type_size(const spv_id *ids, uint32_t bound, uint32_t t, char *name, size_t name_size, int depth) {
    if (t >= bound || depth > 4) return 0;
    const spv_id *d = &ids[t];
    switch (d->op) {
    case OP_TYPE_INT: snprintf(name, name_size, "%sint%u", d->b ? "" : "u", d->a); return d->a / 8;
    case OP_TYPE_FLOAT: snprintf(name, name_size, "float%u", d->a); return d->a / 8;
    case OP_TYPE_VECTOR: {
        char comp[8];
        uint32_t s = type_size(ids, bound, d->a, comp, sizeof comp, depth + 1);
        snprintf(name, name_size, "vec%u %.7s", d->b % 100u, comp);
        return s * d->b;
    }
    case OP_TYPE_ARRAY: {
        char elem[8];
        uint32_t s = type_size(ids, bound, d->a, elem, sizeof elem, depth + 1);
        uint32_t len = d->b < bound && ids[d->b].op == OP_CONSTANT ? ids[d->b].a : 0;
        snprintf(name, name_size, "%.7s[%u]", elem, len % 100000u);
        return s * len;
    }
    default: snprintf(name, name_size, "?"); return 0;
    }
}

int hcl__vk_spirv_reflect(const void *spirv, size_t size, const char *entry, hcl__vk_reflect *out, char *why,
                          size_t why_size) {
    const uint32_t *w = spirv;
    memset(out, 0, sizeof *out);
    if (!spirv || size < 20 || size % 4 || w[0] != SPV_MAGIC) return fail(why, why_size, "not SPIR-V (bad magic)");
    const size_t n = size / 4;
    const uint32_t bound = w[3];
    if (bound == 0 || bound > SPV_MAX_BOUND) return fail(why, why_size, "SPIR-V id bound out of range");
    const uint32_t version = w[1];
    spv_id *ids = calloc(bound, sizeof *ids);
    uint32_t *iface = NULL; /* the entry point's interface ids (SPIR-V 1.4+: every global it uses) */
    uint32_t niface = 0, entry_fn = UINT32_MAX;
    int ok = 0, shader = 0, kernel = 0;
    if (!ids) return fail(why, why_size, "out of host memory");
    for (size_t i = 5; i < n;) {
        const uint32_t len = w[i] >> 16, op = w[i] & 0xffff;
        if (len == 0 || i + len > n) {
            fail(why, why_size, "truncated or malformed SPIR-V");
            goto done;
        }
        const uint32_t *o = &w[i + 1]; /* operands, len - 1 of them */
        const uint32_t no = len - 1;
#define ID_OK(x) ((x) < bound)
        switch (op) {
        case OP_CAPABILITY:
            if (no >= 1) {
                shader |= o[0] == CAP_SHADER;
                kernel |= o[0] == CAP_KERNEL;
                out->cap_float16 |= o[0] == CAP_FLOAT16;
                out->cap_int16 |= o[0] == CAP_INT16;
                out->cap_16bit_storage |= o[0] == CAP_SB16 || o[0] == CAP_UB16;
            }
            break;
        case OP_ENTRY_POINT:
            if (no >= 3 && o[0] == MODEL_GLCOMPUTE && entry_fn == UINT32_MAX) {
                /* the name: a literal string from o[2]; then the interface ids */
                size_t k = 2, elen = strlen(entry);
                const char *s = (const char *)&o[2];
                size_t max = (size_t)(no - 2) * 4;
                if (elen < max && memcmp(s, entry, elen) == 0 && s[elen] == '\0') {
                    k += (elen + 4) / 4;
                    entry_fn = o[1];
                    if (k < no) {
                        iface = (uint32_t *)&o[k];
                        niface = no - (uint32_t)k;
                    }
                }
            }
            break;
        case OP_EXECUTION_MODE:
            if (no >= 5 && o[1] == MODE_LOCAL_SIZE && o[0] == entry_fn) memcpy(out->local_size, &o[2], 12);
            break;
        case OP_TYPE_INT:
        case OP_TYPE_FLOAT:
            if (no >= 2 && ID_OK(o[0])) ids[o[0]] = (spv_id){.op = op, .a = o[1], .b = no >= 3 ? o[2] : 0};
            break;
        case OP_TYPE_VECTOR:
        case OP_TYPE_ARRAY:
            if (no >= 3 && ID_OK(o[0])) ids[o[0]] = (spv_id){.op = op, .a = o[1], .b = o[2]};
            break;
        case OP_TYPE_POINTER:
            if (no >= 3 && ID_OK(o[0])) ids[o[0]] = (spv_id){.op = op, .a = o[1], .b = o[2]};
            break;
        case OP_TYPE_STRUCT:
            if (no >= 1 && ID_OK(o[0])) {
                uint16_t bb = ids[o[0]].buffer_block;
                ids[o[0]] = (spv_id){.op = op, .a = (uint32_t)(i + 2), .b = no - 1, .buffer_block = bb};
            }
            break;
        case OP_CONSTANT:
            if (no >= 3 && ID_OK(o[1])) ids[o[1]] = (spv_id){.op = op, .a = o[2]};
            break;
        case OP_VARIABLE:
            if (no >= 3 && ID_OK(o[1])) {
                uint32_t bd = ids[o[1]].binding, st = ids[o[1]].set;
                ids[o[1]] = (spv_id){.op = op, .a = o[0], .b = o[2], .binding = bd, .set = st};
            }
            break;
        case OP_DECORATE:
            if (no >= 2 && ID_OK(o[0])) {
                if (o[1] == DEC_BINDING && no >= 3) ids[o[0]].binding = o[2] + 1;
                if (o[1] == DEC_SET && no >= 3) ids[o[0]].set = o[2] + 1;
                if (o[1] == DEC_BUFFER_BLOCK) ids[o[0]].buffer_block = 1;
                if (o[1] == DEC_BUILTIN && no >= 3 && o[2] == BUILTIN_WORKGROUP_SIZE) out->size_from_spec = 1;
            }
            break;
        default: break;
        }
        i += len;
    }
    if (kernel && !shader) {
        fail(why, why_size, "OpenCL SPIR-V (Kernel capability), not a Vulkan compute shader");
        goto done;
    }
    if (entry_fn == UINT32_MAX) {
        snprintf(why, why_size, "no GLCompute entry point named '%s'", entry);
        goto done;
    }
    /* the variables: the interface's (SPIR-V 1.4+), else every one of the module */
    for (uint32_t v = 0; v < bound; v++) {
        if (ids[v].op != OP_VARIABLE) continue;
        if (version >= 0x00010400u) {
            int in = 0;
            for (uint32_t k = 0; k < niface && !in; k++) in = iface[k] == v;
            if (!in) continue;
        }
        const uint32_t sc = ids[v].b, ptr = ids[v].a;
        const uint32_t st = ID_OK(ptr) && ids[ptr].op == OP_TYPE_POINTER ? ids[ptr].b : UINT32_MAX;
        if (sc == SC_STORAGE_BUFFER || (sc == SC_UNIFORM && ID_OK(st) && ids[st].buffer_block)) {
            if (ids[v].set > 1) {
                snprintf(why, why_size, "a storage buffer in descriptor set %u (HCL binds set 0 only)", ids[v].set - 1);
                goto done;
            }
            uint32_t b = ids[v].binding ? ids[v].binding - 1 : 0, seen = 0;
            for (uint32_t k = 0; k < out->num_bindings && !seen; k++) seen = out->bindings[k] == b;
            if (seen) continue; /* one buffer seen through two declarations (gemm.comp reads its scalars and vec4s) */
            if (out->num_bindings == HCL_VK_MAX_BINDINGS) {
                fail(why, why_size, "more than 16 storage buffers");
                goto done;
            }
            uint32_t k = out->num_bindings++;
            while (k > 0 && out->bindings[k - 1] > b) {
                out->bindings[k] = out->bindings[k - 1];
                k--;
            }
            out->bindings[k] = b;
        } else if (sc == SC_UNIFORM) {
            fail(why, why_size, "a uniform buffer (HCL passes buffers as storage buffers, values as push constants)");
            goto done;
        } else if (sc == SC_PUSH_CONSTANT && ID_OK(st) && ids[st].op == OP_TYPE_STRUCT) {
            const uint32_t at = ids[st].a, count = ids[st].b;
            for (uint32_t m = 0; m < count && out->num_push < HCL_VK_MAX_PUSH; m++) {
                const uint32_t t = w[at + m];
                char name[16];
                uint32_t sz = type_size(ids, bound, t, name, sizeof name, 0), off = 0;
                /* the member's Offset decoration */
                for (size_t i = 5; i < n;) {
                    const uint32_t len = w[i] >> 16, op = w[i] & 0xffff;
                    if (op == OP_MEMBER_DECORATE && len >= 5 && w[i + 1] == st && w[i + 2] == m &&
                        w[i + 3] == DEC_OFFSET)
                        off = w[i + 4];
                    i += len;
                }
                const uint32_t k = out->num_push++;
                out->push_offset[k] = off;
                out->push_size[k] = sz;
                snprintf(out->push_type[k], sizeof out->push_type[k], "%s", name);
                if (off + sz > out->push_bytes) out->push_bytes = off + sz;
            }
        }
    }
    ok = 1;
done:
    free(ids);
    return ok;
}
