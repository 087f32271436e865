/* The OpenCL entry points the driver uses: one X-macro list, expanded into the symbol table struct (internal.h)
 * and into its resolver (driver.c). Everything is OpenCL 1.2 core, so any ICD loader of 1.2 or later has them.
 * The types come from the Khronos declarations in CL/cl.h through __typeof__, so a mismatch cannot compile. */
#ifndef HCL_OPENCL_SYMBOLS_H
#define HCL_OPENCL_SYMBOLS_H

#define HCL_OCL_SYMBOLS(X)                                                                                             \
    X(clGetPlatformIDs)                                                                                                \
    X(clGetPlatformInfo)                                                                                               \
    X(clGetDeviceIDs)                                                                                                  \
    X(clGetDeviceInfo)                                                                                                 \
    X(clCreateContext)                                                                                                 \
    X(clReleaseContext)                                                                                                \
    X(clCreateCommandQueue)                                                                                            \
    X(clReleaseCommandQueue)                                                                                           \
    X(clFlush)                                                                                                         \
    X(clFinish)                                                                                                        \
    X(clCreateBuffer)                                                                                                  \
    X(clCreateSubBuffer)                                                                                               \
    X(clReleaseMemObject)                                                                                              \
    X(clGetMemObjectInfo)                                                                                              \
    X(clEnqueueWriteBuffer)                                                                                            \
    X(clEnqueueReadBuffer)                                                                                             \
    X(clEnqueueCopyBuffer)                                                                                             \
    X(clEnqueueFillBuffer)                                                                                             \
    X(clWaitForEvents)                                                                                                 \
    X(clGetEventInfo)                                                                                                  \
    X(clGetEventProfilingInfo)                                                                                         \
    X(clReleaseEvent)                                                                                                  \
    X(clCreateProgramWithSource)                                                                                       \
    X(clCreateProgramWithBinary)                                                                                       \
    X(clBuildProgram)                                                                                                  \
    X(clGetProgramInfo)                                                                                                \
    X(clGetProgramBuildInfo)                                                                                           \
    X(clReleaseProgram)                                                                                                \
    X(clCreateKernel)                                                                                                  \
    X(clGetKernelInfo)                                                                                                 \
    X(clGetKernelWorkGroupInfo)                                                                                        \
    X(clReleaseKernel)                                                                                                 \
    X(clSetKernelArg)                                                                                                  \
    X(clEnqueueNDRangeKernel)

/* Resolved when present (the pointer stays NULL otherwise, and the driver checks): clGetKernelArgInfo is 1.2 core, yet
 * the kernel parameter check is not worth refusing a runtime that leaves it out. */
#define HCL_OCL_SYMBOLS_OPTIONAL(X) X(clGetKernelArgInfo)

#endif /* HCL_OPENCL_SYMBOLS_H */
