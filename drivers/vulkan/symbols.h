/* The Vulkan entry points the driver uses: one X-macro list, expanded into the symbol table struct (internal.h) and
 * into its resolver (runtime.c). The loader (libvulkan.so.1) is opened with dlopen; only vkGetInstanceProcAddr is
 * taken from it by name (the kit's resolver), the global ones through it with a NULL instance, the others through
 * it with the driver's instance. All are Vulkan 1.0-1.2 core; the types come from vulkan_core.h's prototypes
 * through __typeof__, so a mismatch cannot compile. */
#ifndef HCL_VULKAN_SYMBOLS_H
#define HCL_VULKAN_SYMBOLS_H

/* Resolved with a NULL instance (the loader's global commands). */
#define HCL_VK_GLOBAL_SYMBOLS(X)                                                                                       \
    X(vkCreateInstance)                                                                                                \
    X(vkEnumerateInstanceVersion)

/* Resolved with the instance. */
#define HCL_VK_SYMBOLS(X)                                                                                              \
    X(vkDestroyInstance)                                                                                               \
    X(vkEnumeratePhysicalDevices)                                                                                      \
    X(vkGetPhysicalDeviceProperties)                                                                                   \
    X(vkGetPhysicalDeviceProperties2)                                                                                  \
    X(vkGetPhysicalDeviceFeatures2)                                                                                    \
    X(vkGetPhysicalDeviceMemoryProperties)                                                                             \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                                        \
    X(vkEnumerateDeviceExtensionProperties)                                                                            \
    X(vkGetDeviceProcAddr)                                                                                             \
    X(vkCreateDevice)                                                                                                  \
    X(vkDestroyDevice)                                                                                                 \
    X(vkGetDeviceQueue)                                                                                                \
    X(vkDeviceWaitIdle)                                                                                                \
    X(vkQueueSubmit)                                                                                                   \
    X(vkAllocateMemory)                                                                                                \
    X(vkFreeMemory)                                                                                                    \
    X(vkMapMemory)                                                                                                     \
    X(vkUnmapMemory)                                                                                                   \
    X(vkCreateBuffer)                                                                                                  \
    X(vkDestroyBuffer)                                                                                                 \
    X(vkGetBufferMemoryRequirements)                                                                                   \
    X(vkBindBufferMemory)                                                                                              \
    X(vkCreateCommandPool)                                                                                             \
    X(vkDestroyCommandPool)                                                                                            \
    X(vkAllocateCommandBuffers)                                                                                        \
    X(vkFreeCommandBuffers)                                                                                            \
    X(vkResetCommandBuffer)                                                                                            \
    X(vkBeginCommandBuffer)                                                                                            \
    X(vkEndCommandBuffer)                                                                                              \
    X(vkCmdPipelineBarrier)                                                                                            \
    X(vkCmdCopyBuffer)                                                                                                 \
    X(vkCmdFillBuffer)                                                                                                 \
    X(vkCmdBindPipeline)                                                                                               \
    X(vkCmdPushConstants)                                                                                              \
    X(vkCmdDispatch)                                                                                                   \
    X(vkCmdResetQueryPool)                                                                                             \
    X(vkCmdWriteTimestamp)                                                                                             \
    X(vkCreateQueryPool)                                                                                               \
    X(vkDestroyQueryPool)                                                                                              \
    X(vkGetQueryPoolResults)                                                                                           \
    X(vkCreateSemaphore)                                                                                               \
    X(vkDestroySemaphore)                                                                                              \
    X(vkWaitSemaphores)                                                                                                \
    X(vkGetSemaphoreCounterValue)                                                                                      \
    X(vkSignalSemaphore)                                                                                               \
    X(vkCreateShaderModule)                                                                                            \
    X(vkDestroyShaderModule)                                                                                           \
    X(vkCreateDescriptorSetLayout)                                                                                     \
    X(vkDestroyDescriptorSetLayout)                                                                                    \
    X(vkCreatePipelineLayout)                                                                                          \
    X(vkDestroyPipelineLayout)                                                                                         \
    X(vkCreateComputePipelines)                                                                                        \
    X(vkDestroyPipeline)                                                                                               \
    X(vkCreatePipelineCache)                                                                                           \
    X(vkDestroyPipelineCache)                                                                                          \
    X(vkGetPipelineCacheData)

#endif /* HCL_VULKAN_SYMBOLS_H */
