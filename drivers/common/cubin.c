/* Parameter counts from CUDA binaries (cubin.h). The layouts read here:
 *  - ELF64 little-endian (a cubin): section headers at e_shoff, names in section e_shstrndx; the kernel's
 *    `.nv.info.<kernel>` section is a list of attributes, each a format byte, an attribute byte and then, by format,
 *    two bytes of padding (format 1, no value), a byte and a byte of padding (format 2), a 16-bit value (format 3)
 *    or a 16-bit length and that many bytes (format 4). Attribute 0x17 (KPARAM_INFO, 12
 *    bytes) describes one parameter: a 32-bit index, the 16-bit ordinal, the 16-bit offset and a word whose bits 18..31
 *    are the size. Attribute 0x19 (format 3) is the size of the parameter block, which every parameter must fit in.
 *  - a fatbin: a 16-byte header (magic 0xBA55ED50, version, header size, size of the entries) and entries, each with
 *    a header (kind 1 PTX or 2 ELF, header size, payload size, flags at byte 40) and its payload; a compressed payload
 *    (flag 0x2000 or 0x8000) cannot be read here. Several fatbins may follow one another.
 * Any other format byte makes the list "unknown" rather than a guess at its length. */
#include "cubin.h"

#include "params.h"

#include <string.h>

#define ELF_SECTION_HEADER 64u
#define NV_INFO_PREFIX ".nv.info."
#define ATTR_KPARAM_INFO 0x17u
#define ATTR_PARAM_BLOCK_SIZE 0x19u
#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_ELF 2u
#define FATBIN_PTX 1u
#define FATBIN_COMPRESSED 0xA000u
#define MAX_ORDINALS 65536u

static uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const unsigned char *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* The parameters an `.nv.info.<kernel>` attribute list describes: each ordinal 0..n-1 once, each inside the block. */
static int count_attributes(const unsigned char *p, size_t n, uint32_t *out_count) {
    uint32_t seen[MAX_ORDINALS / 32];
    memset(seen, 0, sizeof seen);
    uint32_t count = 0, top = 0, block = UINT32_MAX, end = 0;
    size_t at = 0;
    while (at < n) {
        if (n - at < 4) return 0;
        const unsigned format = p[at], attr = p[at + 1];
        if (format >= 1 && format <= 3) { /* no value, a byte, or a 16-bit value: 4 bytes in all */
            if (attr == ATTR_PARAM_BLOCK_SIZE) block = rd16(p + at + 2);
            at += 4;
            continue;
        }
        if (format != 4) return 0;
        const size_t len = rd16(p + at + 2);
        if (len > n - at - 4) return 0;
        const unsigned char *v = p + at + 4;
        if (attr == ATTR_KPARAM_INFO) {
            if (len < 12) return 0;
            const uint32_t ordinal = rd16(v + 4), offset = rd16(v + 6), size = rd32(v + 8) >> 18;
            if (seen[ordinal / 32] & (1u << (ordinal % 32))) return 0; /* twice: not a list this reader knows */
            seen[ordinal / 32] |= 1u << (ordinal % 32);
            count++;
            if (ordinal + 1 > top) top = ordinal + 1;
            if (offset + size > end) end = offset + size;
        }
        at += 4 + len;
    }
    if (count != top || (count && end > block)) return 0; /* a gap in the ordinals, or a parameter past the block */
    *out_count = count;
    return 1;
}

static int elf_count(const unsigned char *b, size_t n, const char *kernel, uint32_t *out_count) {
    if (n < 64 ||
        memcmp(b,
               "\x7f"
               "ELF",
               4) != 0 ||
        b[4] != 2 || b[5] != 1)
        return 0;
    const uint64_t shoff = rd64(b + 0x28);
    const uint32_t shentsize = rd16(b + 0x3a), shnum = rd16(b + 0x3c), shstrndx = rd16(b + 0x3e);
    if (shentsize < ELF_SECTION_HEADER || shnum == 0 || shstrndx >= shnum || shoff > n ||
        (uint64_t)shnum * shentsize > n - shoff)
        return 0;
    const unsigned char *names = b + shoff + (size_t)shstrndx * shentsize;
    const uint64_t names_at = rd64(names + 24), names_size = rd64(names + 32);
    if (names_at > n || names_size > n - names_at) return 0;
    const size_t prefix = sizeof NV_INFO_PREFIX - 1, klen = strlen(kernel);
    for (uint32_t i = 0; i < shnum; i++) {
        const unsigned char *h = b + shoff + (size_t)i * shentsize;
        const uint64_t name = rd32(h);
        if (name >= names_size || names_size - name < prefix + klen + 1) continue;
        const unsigned char *s = b + names_at + name;
        if (memcmp(s, NV_INFO_PREFIX, prefix) != 0 || memcmp(s + prefix, kernel, klen) != 0 || s[prefix + klen])
            continue;
        const uint64_t at = rd64(h + 24), size = rd64(h + 32);
        if (at > n || size > n - at) return 0;
        return count_attributes(b + at, (size_t)size, out_count);
    }
    return 0;
}

static int fatbin_count(const unsigned char *b, size_t n, const char *kernel, uint32_t *out_count) {
    size_t at = 0;
    while (n - at >= 16 && rd32(b + at) == FATBIN_MAGIC) {
        const size_t header = rd16(b + at + 6);
        const uint64_t entries = rd64(b + at + 8);
        if (header < 16 || header > n - at || entries > n - at - header) return 0;
        size_t e = at + header;
        const size_t end = e + (size_t)entries;
        while (end - e >= 16) {
            const uint32_t kind = rd16(b + e), eheader = rd32(b + e + 4);
            const uint64_t payload = rd64(b + e + 8);
            if (eheader < 16 || eheader > end - e || payload > end - e - eheader) return 0;
            const uint64_t flags = eheader >= 48 ? rd64(b + e + 40) : 0;
            const unsigned char *data = b + e + eheader;
            if (!(flags & FATBIN_COMPRESSED)) {
                if (kind == FATBIN_ELF && elf_count(data, (size_t)payload, kernel, out_count)) return 1;
                if (kind == FATBIN_PTX &&
                    hcl__kit_ptx_params((const char *)data, (size_t)payload, kernel, NULL, 0, out_count))
                    return 1;
            }
            e += eheader + (size_t)payload;
        }
        at = end;
    }
    return 0;
}

int hcl__kit_cuda_binary_param_count(const void *image, size_t size, const char *kernel, uint32_t *out_count) {
    const unsigned char *b = image;
    if (!b || !kernel || !out_count) return 0;
    if (size >= 4 && memcmp(b,
                            "\x7f"
                            "ELF",
                            4) == 0)
        return elf_count(b, size, kernel, out_count);
    if (size >= 4 && rd32(b) == FATBIN_MAGIC) return fatbin_count(b, size, kernel, out_count);
    return hcl__kit_ptx_params(image, size, kernel, NULL, 0, out_count);
}
