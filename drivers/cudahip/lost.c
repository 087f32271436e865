/* Device faults (HCL_ERROR_DEVICE_LOST): which GPUs of this process hit a sticky error (an illegal address, a
 * failed launch, an uncorrectable ECC error: hcl_gpu_map_*.h lists them), and how many opened HCL devices use each.
 * After such an error every call on the GPU's context fails; the last HCL device of a lost GPU to close resets it
 * (hcl__gpu_device_reset: CUDA resets the primary context, HIP the device), so that opening it again gives a
 * working device. The GPU's other users in the process (a CUDA runtime library sharing the primary context) lost
 * it as well: the reset is what they need too. */
#include "gpu.h"

#include <pthread.h>

#define HCL_GPU_LOST_MAX 64 /* GPUs of one process tracked (ordinals above are never reset) */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned g_users[HCL_GPU_LOST_MAX];
static unsigned char g_lost[HCL_GPU_LOST_MAX];

void hcl__gpu_lost_open(int ordinal) {
    if (ordinal < 0 || ordinal >= HCL_GPU_LOST_MAX) return;
    pthread_mutex_lock(&g_lock);
    g_users[ordinal]++;
    pthread_mutex_unlock(&g_lock);
}

void hcl__gpu_lost_note(void) {
    int ordinal = -1;
    if (hcl__gpu_current_ordinal(&ordinal) != HCL_SUCCESS || ordinal < 0 || ordinal >= HCL_GPU_LOST_MAX) return;
    pthread_mutex_lock(&g_lock);
    g_lost[ordinal] = 1;
    pthread_mutex_unlock(&g_lock);
}

int hcl__gpu_lost_close(int ordinal) {
    if (ordinal < 0 || ordinal >= HCL_GPU_LOST_MAX) return 0;
    pthread_mutex_lock(&g_lock);
    int reset = 0;
    if (g_users[ordinal] > 0 && --g_users[ordinal] == 0 && g_lost[ordinal]) {
        g_lost[ordinal] = 0;
        reset = 1;
    }
    pthread_mutex_unlock(&g_lock);
    return reset;
}
