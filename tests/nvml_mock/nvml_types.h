/* The part of NVML's C interface the mock implements: return codes, enums and struct layouts as
 * nvml.h (NVML API version 13, CUDA 13 drivers) defines them. Written from the header's documented
 * layouts; nvidia-ml-py's ctypes structs must match these byte for byte, which is what the tests
 * through the real bindings check.
 */
#ifndef MOCK_NVML_TYPES_H
#define MOCK_NVML_TYPES_H

typedef int nvmlReturn_t; /* an enum in nvml.h: the same size and passing convention as int */

/* name, value, nvmlErrorString's text */
#define MOCK_NVML_RETURN_CODES(X)                                                                    \
    X(SUCCESS, 0, "Success")                                                                         \
    X(ERROR_UNINITIALIZED, 1, "Uninitialized")                                                       \
    X(ERROR_INVALID_ARGUMENT, 2, "Invalid Argument")                                                 \
    X(ERROR_NOT_SUPPORTED, 3, "Not Supported")                                                       \
    X(ERROR_NO_PERMISSION, 4, "Insufficient Permissions")                                            \
    X(ERROR_ALREADY_INITIALIZED, 5, "Already Initialized")                                           \
    X(ERROR_NOT_FOUND, 6, "Not Found")                                                               \
    X(ERROR_INSUFFICIENT_SIZE, 7, "Insufficient Size")                                               \
    X(ERROR_INSUFFICIENT_POWER, 8, "Insufficient External Power")                                    \
    X(ERROR_DRIVER_NOT_LOADED, 9, "Driver Not Loaded")                                               \
    X(ERROR_TIMEOUT, 10, "Timeout")                                                                  \
    X(ERROR_IRQ_ISSUE, 11, "Interrupt Request Issue")                                                \
    X(ERROR_LIBRARY_NOT_FOUND, 12, "NVML Shared Library Not Found")                                  \
    X(ERROR_FUNCTION_NOT_FOUND, 13, "Function Not Found")                                            \
    X(ERROR_CORRUPTED_INFOROM, 14, "Corrupted infoROM")                                              \
    X(ERROR_GPU_IS_LOST, 15, "GPU is lost")                                                          \
    X(ERROR_RESET_REQUIRED, 16, "GPU requires restart")                                              \
    X(ERROR_OPERATING_SYSTEM, 17, "The operating system has blocked the request.")                   \
    X(ERROR_LIB_RM_VERSION_MISMATCH, 18, "RM has detected an NVML/RM version mismatch.")             \
    X(ERROR_IN_USE, 19, "In use by another client")                                                  \
    X(ERROR_MEMORY, 20, "Insufficient Memory")                                                       \
    X(ERROR_NO_DATA, 21, "No data")                                                                  \
    X(ERROR_ARGUMENT_VERSION_MISMATCH, 25, "Argument version mismatch")                              \
    X(ERROR_NOT_READY, 27, "Not ready")                                                              \
    X(ERROR_GPU_NOT_FOUND, 28, "GPU not found")                                                      \
    X(ERROR_UNKNOWN, 999, "Unknown Error")

enum {
#define MOCK_NVML_ENUM(name, value, text) NVML_##name = value,
    MOCK_NVML_RETURN_CODES(MOCK_NVML_ENUM)
#undef MOCK_NVML_ENUM
};

/* A versioned struct's version word: its size in the low bits, the version in the top byte. */
#define MOCK_STRUCT_VERSION(type, ver) ((unsigned int)(sizeof(type) | ((unsigned int)(ver) << 24)))

typedef struct {
    struct mock_device *handle; /* nvml.h: struct nvmlDevice_st *; the mock's device record */
} nvmlDevice_t;

typedef struct {
    struct mock_gpm_sample *handle;
} nvmlGpmSample_t;

enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 };
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
enum {
    NVML_TOPOLOGY_INTERNAL = 0,
    NVML_TOPOLOGY_SINGLE = 10,
    NVML_TOPOLOGY_MULTIPLE = 20,
    NVML_TOPOLOGY_HOSTBRIDGE = 30,
    NVML_TOPOLOGY_NODE = 40,
    NVML_TOPOLOGY_SYSTEM = 50
};
enum {
    NVML_P2P_STATUS_OK = 0,
    NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED = 1,
    NVML_P2P_STATUS_NOT_SUPPORTED = 5
};
enum {
    NVML_P2P_CAPS_INDEX_READ = 0,
    NVML_P2P_CAPS_INDEX_WRITE = 1,
    NVML_P2P_CAPS_INDEX_NVLINK = 2,
    NVML_P2P_CAPS_INDEX_ATOMICS = 3,
    NVML_P2P_CAPS_INDEX_PCI = 4
};
enum { NVML_GPM_METRIC_SM_UTIL = 2, NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5, NVML_GPM_METRIC_DRAM_BW_UTIL = 10 };
#define NVML_GPM_METRICS_GET_VERSION 1
#define NVML_GPM_SUPPORT_VERSION 1
#define NVML_VALUE_NOT_AVAILABLE_ULL 0xFFFFFFFFFFFFFFFFULL
#define NVML_INSTANCE_ID_NONE 0xFFFFFFFFu

typedef struct {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

typedef struct {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

typedef struct {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used; /* v1: reserved + allocated */
} nvmlMemory_t;

typedef struct {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used; /* v2: allocated only */
} nvmlMemory_v2_t;

typedef struct {
    unsigned int version;
    unsigned int sensorType; /* nvmlTemperatureSensors_t */
    int temperature;
} nvmlTemperature_v1_t;

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t; /* nvml.h: nvmlProcessInfo_v2_t, which _v3 of the process queries also takes */

typedef struct {
    unsigned int pid;
    unsigned long long timeStamp; /* CPU time stamp, microseconds */
    unsigned int smUtil;
    unsigned int memUtil;
    unsigned int encUtil;
    unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

typedef struct {
    char *shortName;
    char *longName;
    char *unit;
} nvmlGpmMetricMetricInfo_t;

typedef struct {
    unsigned int metricId;
    nvmlReturn_t nvmlReturn;
    double value;
    nvmlGpmMetricMetricInfo_t metricInfo;
} nvmlGpmMetric_t;

typedef struct {
    unsigned int version;
    unsigned int numMetrics;
    nvmlGpmSample_t sample1;
    nvmlGpmSample_t sample2;
    nvmlGpmMetric_t metrics[1]; /* nvml.h: NVML_GPM_METRIC_MAX entries; only numMetrics are read */
} nvmlGpmMetricsGet_t;

typedef struct {
    unsigned int version;
    unsigned int isSupportedDevice;
} nvmlGpmSupport_t;

#endif
