/* CI check of the HIP built-in kernels without a GPU (ctest: hip-kernels-compile).
 *
 * Reads the code-object bundle of the built-in kernels that libhcl embeds (hcl_kernels_hip_bundle, from
 * kernels/CMakeLists.txt; the same bytes, linked in here from hcl_kernels) and checks, for every target of
 * HCL_HIP_TARGETS (the first argument, comma-separated):
 *  - the bundle holds a code object for it (a clang offload bundle entry "hipv4-amdgcn-amd-amdhsa--<target>");
 *  - it is an AMDGPU ELF holding a kernel descriptor (<name>.kd) for every kernel the catalogue names for the GPU
 *    program (hcl_kprogram_get(HCL_KPROG_GPU)), the kernels the core's launch plans create;
 *  - every kernel was compiled for the wavefront width the HIP driver reports for that target (64 on gfx9, 32 on
 *    gfx10+; device_limits), read from the code object's metadata (.wavefront_size);
 *  - the MFMA gemm kernels (hcl_gemm_mfma_*, kernels/gemm/gemm_mfma.cu) hold the matrix-core instruction of their
 *    input type where the HIP driver lists that type in matrix_types (f16: gfx908, gfx90a, gfx94x; bf16: gfx90a,
 *    gfx94x), read from the ELF symbol table and the kernel's code words (v_mfma_f32_32x32x8f16, and for bf16
 *    v_mfma_f32_32x32x8bf16_1k on gfx90a, v_mfma_f32_32x32x8_bf16 on gfx94x, found by the opcode bits of the
 *    VOP3P-MAI encoding: the first word's upper 16 bits), and are an empty body (no MFMA word, a few bytes) elsewhere,
 *    where the plans never launch them;
 * and prints each target's most vector registers and any register spills (reported, not failed: a spill costs
 * speed, not correctness). Exits non-zero on any failure. */
#define _POSIX_C_SOURCE 200809L
#include "hcl_plan.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char hcl_kernels_hip_bundle[];
extern const size_t hcl_kernels_hip_bundle_size;

/* the kernels of the catalogue's GPU program */
static const char *const *g_kernels;
static size_t g_num_kernels;
#define NUM_KERNELS g_num_kernels

static uint64_t rd64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v; /* the bundle format is little-endian, as is every host this builds on */
}

static const unsigned char *find(const unsigned char *hay, size_t hay_size, const void *needle, size_t size) {
    if (size == 0 || size > hay_size) return NULL;
    for (size_t i = 0; i + size <= hay_size; i++)
        if (hay[i] == *(const unsigned char *)needle && memcmp(hay + i, needle, size) == 0) return hay + i;
    return NULL;
}

/* The unsigned value after each occurrence of a msgpack string key (fixstr, up to 31 bytes) in the metadata note:
 * calls back with every value found. Keys of the AMDGPU metadata are unique enough to be found by their bytes. */
static void each_value(const unsigned char *obj, size_t size, const char *key, void (*fn)(uint64_t, void *),
                       void *ctx) {
    unsigned char pat[40];
    size_t klen = strlen(key);
    pat[0] = (unsigned char)(0xa0 | klen);
    memcpy(pat + 1, key, klen);
    size_t plen = klen + 1, off = 0;
    const unsigned char *hit;
    while ((hit = find(obj + off, size - off, pat, plen)) != NULL) {
        const unsigned char *v = hit + plen;
        size_t left = size - (size_t)(v - obj);
        uint64_t value = UINT64_MAX;
        if (left >= 1 && v[0] < 0x80)
            value = v[0]; /* positive fixint */
        else if (left >= 2 && v[0] == 0xcc)
            value = v[1]; /* uint8 */
        else if (left >= 3 && v[0] == 0xcd)
            value = (uint64_t)v[1] << 8 | v[2]; /* uint16, big-endian */
        else if (left >= 5 && v[0] == 0xce)
            value = (uint64_t)v[1] << 24 | (uint64_t)v[2] << 16 | (uint64_t)v[3] << 8 | v[4];
        fn(value, ctx);
        off = (size_t)(v - obj);
    }
}

typedef struct stats {
    unsigned count;
    uint64_t min, max, sum;
} stats;
static void add(uint64_t v, void *ctx) {
    stats *s = ctx;
    if (s->count == 0 || v < s->min) s->min = v;
    if (s->count == 0 || v > s->max) s->max = v;
    s->sum += v;
    s->count++;
}

static uint32_t rd32(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint16_t rd16(const unsigned char *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* The code of function `name` in an ELF64 code object: its bytes through the symbol table (.symtab, or .dynsym), or
 * NULL. */
static const unsigned char *function_code(const unsigned char *obj, size_t size, const char *name, size_t *out_size) {
    const uint64_t shoff = rd64(obj + 0x28);
    const unsigned shentsize = rd16(obj + 0x3a), shnum = rd16(obj + 0x3c);
    if (shentsize < 64 || shoff > size || (uint64_t)shnum * shentsize > size - shoff) return NULL;
    for (unsigned i = 0; i < shnum; i++) {
        const unsigned char *sh = obj + shoff + (size_t)i * shentsize;
        const uint32_t type = rd32(sh + 4), link = rd32(sh + 40);
        if ((type != 2 && type != 11) || link >= shnum) continue; /* SHT_SYMTAB, SHT_DYNSYM */
        const uint64_t off = rd64(sh + 24), sz = rd64(sh + 32), ent = rd64(sh + 56);
        const unsigned char *strsh = obj + shoff + (size_t)link * shentsize;
        const uint64_t stroff = rd64(strsh + 24), strsz = rd64(strsh + 32);
        if (ent < 24 || off > size || sz > size - off || stroff > size || strsz > size - stroff) continue;
        for (uint64_t e = 0; e + ent <= sz; e += ent) {
            const unsigned char *sym = obj + off + e;
            const uint32_t nm = rd32(sym);
            const unsigned shndx = rd16(sym + 6);
            if (nm >= strsz || (sym[4] & 0xf) != 2 || shndx == 0 || shndx >= shnum) continue; /* STT_FUNC */
            const char *sname = (const char *)obj + stroff + nm;
            if (strnlen(sname, strsz - nm) == strsz - nm || strcmp(sname, name) != 0) continue;
            const unsigned char *sec = obj + shoff + (size_t)shndx * shentsize;
            const uint64_t addr = rd64(sym + 8), fsize = rd64(sym + 16), sec_addr = rd64(sec + 16),
                           sec_off = rd64(sec + 24), sec_size = rd64(sec + 32);
            if (addr < sec_addr || addr - sec_addr > sec_size || fsize > sec_size - (addr - sec_addr) ||
                sec_off + (addr - sec_addr) + fsize > size)
                return NULL;
            *out_size = (size_t)fsize;
            return obj + sec_off + (addr - sec_addr);
        }
    }
    return NULL;
}

/* The MFMA gemm kernels on one target: the instruction of their type where it has one, an empty body elsewhere. */
static int check_mfma(const char *target, const unsigned char *obj, size_t size) {
    const int cdna2 = strcmp(target, "gfx90a") == 0 || strncmp(target, "gfx94", 5) == 0;
    const int has_f16 = cdna2 || strcmp(target, "gfx908") == 0, has_bf16 = cdna2;
    /* the upper 16 bits of the first word of v_mfma_f32_32x32x8f16, and of the bf16 form of the target */
    const uint32_t op_f16 = 0xd3cc, op_bf16 = strncmp(target, "gfx94", 5) == 0 ? 0xd3e0 : 0xd3e6;
    int failures = 0;
    unsigned kernels = 0, with = 0, empty = 0, total = 0;
    for (size_t i = 0; i < NUM_KERNELS; i++) {
        if (strncmp(g_kernels[i], "hcl_gemm_mfma_", 14) != 0) continue;
        kernels++;
        const int bf16 = strncmp(g_kernels[i] + 14, "bf16", 4) == 0;
        const int want = bf16 ? has_bf16 : has_f16;
        size_t code_size = 0;
        const unsigned char *code = function_code(obj, size, g_kernels[i], &code_size);
        if (!code) {
            printf("FAIL %-8s %s: no function symbol in the code object\n", target, g_kernels[i]);
            failures++;
            continue;
        }
        unsigned mfma = 0, mai = 0;
        for (size_t w = 0; w + 4 <= code_size; w += 4) {
            const uint32_t word = rd32(code + w);
            mfma += word >> 16 == (bf16 ? op_bf16 : op_f16);
            mai += (word & 0xffc00000u) == 0xd3c00000u; /* any VOP3P-MAI opcode (MFMA) */
        }
        if (want && mfma == 0) {
            printf("FAIL %-8s %s: %zu bytes of code without its MFMA instruction (0x%04x....)\n", target, g_kernels[i],
                   code_size, (unsigned)(bf16 ? op_bf16 : op_f16));
            failures++;
        } else if (!want && (mai != 0 || code_size > 16)) {
            printf("FAIL %-8s %s: %zu bytes of code, %u MFMA words, where the body should be empty\n", target,
                   g_kernels[i], code_size, mai);
            failures++;
        }
        with += want && mfma != 0;
        empty += !want && mai == 0 && code_size <= 16;
        total += mfma;
    }
    if (kernels == 0) {
        printf("FAIL %-8s the catalogue names no hcl_gemm_mfma_ kernel\n", target);
        failures++;
    }
    if (!failures)
        printf("ok   %-8s MFMA gemm: %u kernels with the instruction (%u MFMA words in all), %u empty bodies\n", target,
               with, total, empty);
    return failures;
}

static int check_target(const char *target, const unsigned char *obj, size_t size) {
    int failures = 0;
    if (size < 64 || memcmp(obj, "\177ELF", 4) != 0) {
        printf("FAIL %-8s the bundle entry is not an ELF code object\n", target);
        return 1;
    }
    uint16_t machine;
    memcpy(&machine, obj + 18, 2);
    if (machine != 224) { /* EM_AMDGPU */
        printf("FAIL %-8s e_machine %u is not EM_AMDGPU (224)\n", target, (unsigned)machine);
        failures++;
    }
    unsigned missing = 0;
    for (size_t i = 0; i < NUM_KERNELS; i++) {
        char sym[96];
        int n = snprintf(sym, sizeof sym, "%s.kd", g_kernels[i]);
        if (!find(obj, size, sym, (size_t)n + 1)) { /* with its NUL: the whole symbol name */
            printf("FAIL %-8s no kernel descriptor %s\n", target, sym);
            missing++;
        }
    }
    failures += missing != 0;
    /* gfx9 (GCN, CDNA) runs 64-lane wavefronts only; gfx10+ (RDNA) compiles wave32 unless told otherwise, and its
     * runtime reports a warp size of 32: the width the HIP driver gives the core's plans (the softmax warp kernels
     * are shaped by it) */
    unsigned want_wave = strncmp(target, "gfx1", 4) == 0 ? 32 : 64;
    stats wave = {0}, vgpr = {0}, vspill = {0}, sspill = {0};
    each_value(obj, size, ".wavefront_size", add, &wave);
    each_value(obj, size, ".vgpr_count", add, &vgpr);
    each_value(obj, size, ".vgpr_spill_count", add, &vspill);
    each_value(obj, size, ".sgpr_spill_count", add, &sspill);
    if (wave.count < NUM_KERNELS || wave.min != want_wave || wave.max != want_wave) {
        printf("FAIL %-8s wavefront sizes: %u kernels, %llu..%llu; expected %u on every one of %zu\n", target,
               wave.count, (unsigned long long)wave.min, (unsigned long long)wave.max, want_wave, NUM_KERNELS);
        failures++;
    }
    if (!failures)
        printf("ok   %-8s %zu kernels, wave%u, up to %llu VGPRs, spills: %llu VGPR, %llu SGPR%s\n", target, NUM_KERNELS,
               want_wave, (unsigned long long)vgpr.max, (unsigned long long)vspill.sum, (unsigned long long)sspill.sum,
               vspill.sum || sspill.sum ? " (slower, still correct)" : "");
    return failures + check_mfma(target, obj, size);
}

int main(int argc, char **argv) {
    const hcl_kprogram *gpu = hcl_kprogram_get(HCL_KPROG_GPU);
    g_kernels = gpu->kernels;
    g_num_kernels = gpu->num_kernels;
    const unsigned char *b = hcl_kernels_hip_bundle;
    size_t size = hcl_kernels_hip_bundle_size;
    static const char magic[] = "__CLANG_OFFLOAD_BUNDLE__";
    if (size < 32 || memcmp(b, magic, sizeof magic - 1) != 0) {
        printf("FAIL the embedded built-in bundle (%zu bytes) is not a clang offload bundle\n", size);
        return 1;
    }
    uint64_t entries = rd64(b + 24);
    printf("bundle: %zu bytes, %llu entries\n", size, (unsigned long long)entries);
    const char *want = argc > 1 ? argv[1] : "";
    char *list = strdup(want);
    if (!list) return 1;
    int failures = 0, targets = 0;
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        targets++;
        size_t pos = 32;
        const unsigned char *obj = NULL;
        size_t obj_size = 0;
        for (uint64_t e = 0; e < entries && pos + 24 <= size; e++) {
            uint64_t off = rd64(b + pos), len = rd64(b + pos + 8), tlen = rd64(b + pos + 16);
            if (pos + 24 + tlen > size || off > size || len > size - off) {
                printf("FAIL bundle entry %llu runs past the end\n", (unsigned long long)e);
                free(list);
                return 1;
            }
            const char *triple = (const char *)b + pos + 24;
            /* "hipv4-amdgcn-amd-amdhsa--gfx90a", possibly with target features after a ':' */
            const char *dash = NULL;
            for (size_t i = 0; i + 1 < tlen; i++)
                if (triple[i] == '-' && triple[i + 1] == '-') dash = triple + i + 2;
            size_t tl = strlen(t);
            if (dash && (size_t)(triple + tlen - dash) >= tl && strncmp(dash, t, tl) == 0 &&
                ((size_t)(triple + tlen - dash) == tl || dash[tl] == ':')) {
                obj = b + off;
                obj_size = (size_t)len;
            }
            pos += 24 + (size_t)tlen;
        }
        if (!obj) {
            printf("FAIL %-8s no code object in the bundle\n", t);
            failures++;
            continue;
        }
        failures += check_target(t, obj, obj_size);
    }
    free(list);
    if (targets == 0) {
        printf("FAIL no targets given (usage: hcl-kernels-test-hip-bundle gfx906,gfx90a,...)\n");
        return 1;
    }
    printf("%s: %d failure(s) over %d target(s)\n", failures ? "FAIL" : "PASS", failures, targets);
    return failures ? 1 : 0;
}
