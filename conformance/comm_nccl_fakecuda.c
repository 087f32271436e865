/* A stand-in for libcuda.so.1 with the few entry points the nccl engine resolves, for hcl-comm-nccl-test fake: on a
 * machine with libnccl.so.2 but no GPU driver it lets the engine load (HCL_CUDA_LIBRARY names this file), so that
 * loading, the version and the refusals run. Every call fails with CUDA_ERROR_NO_DEVICE: nothing here may reach a
 * device. */
#define EXPORT __attribute__((visibility("default")))
#define NO_DEVICE 100 /* CUDA_ERROR_NO_DEVICE */

EXPORT int cuCtxGetCurrent(void **ctx) {
    *ctx = 0;
    return NO_DEVICE;
}
EXPORT int cuCtxPushCurrent_v2(void *ctx) {
    (void)ctx;
    return NO_DEVICE;
}
EXPORT int cuCtxPopCurrent_v2(void **ctx) {
    *ctx = 0;
    return NO_DEVICE;
}
EXPORT int cuCtxGetDevice(int *device) {
    *device = -1;
    return NO_DEVICE;
}
EXPORT int cuStreamQuery(void *stream) {
    (void)stream;
    return NO_DEVICE;
}
EXPORT int cuGetErrorName(int error, const char **name) {
    *name = error == NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
    return 0;
}
