/* The handle table. A handle is not a pointer: it encodes a slot index, the slot's generation and the object
 * type, so a NULL, released, forged or wrong-type handle is recognised without ever touching freed memory.
 * Layout of the 64-bit value: bits 0-31 slot index + 1, bits 32-55 generation, bits 56-63 type. */
#include "core.h"

#include <stdlib.h>

typedef struct slot {
    void *object; /* NULL when free */
    uint32_t gen; /* bumped on every removal */
    uint8_t type;
    uint32_t next_free;
} slot;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *slots;
static uint32_t slot_count, slot_cap;
static uint32_t free_head = UINT32_MAX;

_Static_assert(sizeof(void *) == 8, "HCL handles need a 64-bit address space");

static void *encode(uint32_t index, uint32_t gen, uint8_t type) {
    uint64_t v = ((uint64_t)type << 56) | ((uint64_t)(gen & 0xFFFFFFu) << 32) | (uint64_t)(index + 1u);
    return (void *)(uintptr_t)v;
}

/* Returns the slot index for a handle that matches a live slot of `type`, or UINT32_MAX. Lock held. */
static uint32_t decode(const void *handle, hcl__htype type) {
    uint64_t v = (uint64_t)(uintptr_t)handle;
    uint32_t low = (uint32_t)v;
    if (low == 0 || low > slot_count) return UINT32_MAX;
    uint32_t index = low - 1;
    if ((uint8_t)(v >> 56) != (uint8_t)type || ((v >> 32) & 0xFFFFFFu) != (slots[index].gen & 0xFFFFFFu))
        return UINT32_MAX;
    if (!slots[index].object || slots[index].type != (uint8_t)type) return UINT32_MAX;
    return index;
}

void *hcl__handle_add(hcl__htype type, void *object) {
    void *handle = NULL;
    pthread_mutex_lock(&table_lock);
    uint32_t index;
    if (free_head != UINT32_MAX) {
        index = free_head;
        free_head = slots[index].next_free;
    } else {
        if (slot_count == slot_cap) {
            uint32_t cap = slot_cap ? slot_cap * 2 : 256;
            if (cap > 0x7FFFFFFFu) goto out;
            slot *grown = realloc(slots, (size_t)cap * sizeof *grown);
            if (!grown) goto out;
            slots = grown;
            slot_cap = cap;
        }
        index = slot_count++;
        slots[index].gen = 1;
    }
    slots[index].object = object;
    slots[index].type = (uint8_t)type;
    slots[index].next_free = UINT32_MAX;
    handle = encode(index, slots[index].gen, (uint8_t)type);
out:
    pthread_mutex_unlock(&table_lock);
    return handle;
}

/* The object behind a live handle of that type, or NULL; with `remove`, the slot is freed for reuse (its
 * generation moves on, so the old handle stays invalid). */
static void *access_slot(const void *handle, hcl__htype type, int remove) {
    if (!handle) return NULL;
    void *object = NULL;
    pthread_mutex_lock(&table_lock);
    uint32_t index = decode(handle, type);
    if (index != UINT32_MAX) {
        object = slots[index].object;
        if (remove) {
            slots[index].object = NULL;
            slots[index].gen++;
            slots[index].next_free = free_head;
            free_head = index;
        }
    }
    pthread_mutex_unlock(&table_lock);
    return object;
}

void *hcl__handle_get(const void *handle, hcl__htype type) { return access_slot(handle, type, 0); }

void *hcl__handle_remove(const void *handle, hcl__htype type) { return access_slot(handle, type, 1); }
