/* The handle table. A handle is not a pointer: it encodes a slot index, the slot's generation and the object
 * type, so a NULL, released, forged or wrong-type handle is recognised without ever touching freed memory.
 * Layout of the 64-bit value: bits 0-31 slot index + 1, bits 32-55 generation, bits 56-63 type. */
#include "core.h"

#include <stdlib.h>

/* Slots live in chunks that never move once made (core.h: hcl__slot, hcl__handle_slot, hcl__handle_decode), so a
 * lookup reads them without the lock (every API call looks up its handles: the lock and unlock were most of a cheap
 * call's cost; the lookup is inlined from core.h); adding and removing take the lock. */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
_Atomic(hcl__slot *) hcl__handle_chunks[HCL__HANDLE_MAX_CHUNKS];
static uint32_t slot_count; /* under the lock */
static uint32_t free_head = UINT32_MAX;

_Static_assert(sizeof(void *) == 8, "HCL handles need a 64-bit address space");

static void *encode(uint32_t index, uint32_t gen, uint8_t type) {
    uint64_t v = ((uint64_t)type << 56) | ((uint64_t)(gen & 0xFFFFFFu) << 32) | (uint64_t)(index + 1u);
    return (void *)(uintptr_t)v;
}

void *hcl__handle_add(hcl__htype type, void *object) {
    void *handle = NULL;
    pthread_mutex_lock(&table_lock);
    uint32_t index;
    hcl__slot *s;
    if (free_head != UINT32_MAX) {
        index = free_head;
        s = hcl__handle_slot(index);
        free_head = s->next_free;
    } else {
        if (slot_count == HCL__HANDLE_MAX_CHUNKS * HCL__HANDLE_CHUNK_SLOTS) goto out;
        index = slot_count;
        if (!(index & (HCL__HANDLE_CHUNK_SLOTS - 1))) { /* the first slot of a new chunk */
            hcl__slot *chunk = calloc(HCL__HANDLE_CHUNK_SLOTS, sizeof *chunk);
            if (!chunk) goto out;
            for (uint32_t i = 0; i < HCL__HANDLE_CHUNK_SLOTS; i++) atomic_init(&chunk[i].gen, 1);
            atomic_store_explicit(&hcl__handle_chunks[index >> HCL__HANDLE_CHUNK_BITS], chunk, memory_order_release);
        }
        slot_count++;
        s = hcl__handle_slot(index);
    }
    atomic_store_explicit(&s->type, (uint8_t)type, memory_order_relaxed);
    s->next_free = UINT32_MAX;
    atomic_store_explicit(&s->object, object, memory_order_release);
    handle = encode(index, atomic_load_explicit(&s->gen, memory_order_relaxed), (uint8_t)type);
out:
    pthread_mutex_unlock(&table_lock);
    return handle;
}

/* The object behind a live handle of that type, or NULL; the slot is freed for reuse (its generation moves on, so the
 * old handle stays invalid). */
void *hcl__handle_remove(const void *handle, hcl__htype type) {
    void *object = NULL;
    pthread_mutex_lock(&table_lock);
    hcl__slot *s = hcl__handle_decode(handle, type, &object);
    if (s) {
        atomic_store_explicit(&s->object, NULL, memory_order_release);
        atomic_fetch_add_explicit(&s->gen, 1, memory_order_release);
        s->next_free = free_head;
        free_head = (uint32_t)((uint64_t)(uintptr_t)handle & 0xFFFFFFFFu) - 1;
    }
    pthread_mutex_unlock(&table_lock);
    return s ? object : NULL;
}
