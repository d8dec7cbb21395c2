/* A stand-in for libnvidia-ml.so.1: the NVML entry points GPU Advisor calls, answering from a
 * scenario file, so that the real nvidia-ml-py bindings and the app's readers run on a machine
 * without an NVIDIA GPU. Every other NVML function answers NVML_ERROR_NOT_SUPPORTED
 * (unsupported.c).
 *
 * Behaviour follows the documentation in nvml.h: return codes, the two-call size protocol of the
 * process queries, struct version words, values in NVML's units (milliwatts, MHz, KB/s, bytes).
 * Time-varying readings and a GPU that falls off the bus are driven by seconds since nvmlInit
 * loaded the scenario. Without MOCK_NVML_SCENARIO, nvmlInit answers NVML_ERROR_DRIVER_NOT_LOADED,
 * as a machine with the library but no kernel driver would.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvml_types.h"
#include "scenario.h"

#define API __attribute__((visibility("default")))

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static mock_scenario *g_scenario; /* kept after nvmlShutdown: a reader racing shutdown sees old data */
static int g_init_count;
static double g_loaded_at_s;

static double monotonic_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double scenario_time_s(void) { return monotonic_s() - g_loaded_at_s; }

static unsigned long long wall_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000ULL;
}

/* ---- init and shutdown ---------------------------------------------------------------------- */

API nvmlReturn_t nvmlInitWithFlags(unsigned int flags) {
    (void)flags;
    pthread_mutex_lock(&g_lock);
    nvmlReturn_t result = NVML_SUCCESS;
    if (g_init_count == 0) {
        const char *path = getenv("MOCK_NVML_SCENARIO");
        if (!path || !*path) {
            result = NVML_ERROR_DRIVER_NOT_LOADED;
        } else {
            char error[256] = "";
            mock_scenario *loaded = mock_scenario_load(path, error, sizeof error);
            if (!loaded) {
                fprintf(stderr, "mock NVML: %s: %s\n", path, error);
                result = NVML_ERROR_UNKNOWN;
            } else if (loaded->init_error) {
                result = loaded->init_error;
                mock_scenario_free(loaded);
            } else {
                g_scenario = loaded; /* the previous one is left allocated (see g_scenario) */
                g_loaded_at_s = monotonic_s();
            }
        }
    }
    if (result == NVML_SUCCESS) g_init_count++;
    pthread_mutex_unlock(&g_lock);
    return result;
}

API nvmlReturn_t nvmlInit_v2(void) { return nvmlInitWithFlags(0); }
API nvmlReturn_t nvmlInit(void) { return nvmlInitWithFlags(0); }

API nvmlReturn_t nvmlShutdown(void) {
    pthread_mutex_lock(&g_lock);
    nvmlReturn_t result = g_init_count > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
    if (g_init_count > 0) g_init_count--;
    pthread_mutex_unlock(&g_lock);
    return result;
}

API const char *nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
#define MOCK_NVML_TEXT(name, value, text) case value: return text;
        MOCK_NVML_RETURN_CODES(MOCK_NVML_TEXT)
#undef MOCK_NVML_TEXT
    default: return "Unknown Error";
    }
}

/* ---- the guarded entry: initialised, a handle we issued, not lost, no injected error ---------- */

static int initialised(void) { return g_init_count > 0 && g_scenario != NULL; }

static int issued(const mock_device *d) {
    for (size_t i = 0; i < g_scenario->device_count; i++)
        if (g_scenario->devices[i] == d) return 1;
    for (size_t i = 0; i < g_scenario->mig_total; i++)
        if (&g_scenario->mig_pool[i] == d) return 1;
    return 0;
}

static const mock_device *gpu_of(const mock_device *d) { return d->parent ? d->parent : d; }

static int is_lost(const mock_device *d) {
    const mock_device *gpu = gpu_of(d);
    return gpu->lost_after_set && scenario_time_s() >= gpu->lost_after_s;
}

static nvmlReturn_t injected(const mock_device *d, const char *function) {
    for (size_t i = 0; i < d->error_count; i++)
        if (strcmp(d->errors[i].function, function) == 0) return d->errors[i].code;
    return NVML_SUCCESS;
}

static nvmlReturn_t check_device(nvmlDevice_t device, const char *function) {
    if (!initialised()) return NVML_ERROR_UNINITIALIZED;
    if (!device.handle || !issued(device.handle)) return NVML_ERROR_INVALID_ARGUMENT;
    if (is_lost(device.handle)) return NVML_ERROR_GPU_IS_LOST;
    nvmlReturn_t error = injected(gpu_of(device.handle), function);
    return error != NVML_SUCCESS ? error : injected(device.handle, function);
}

#define CHECK(device)                                                  \
    do {                                                               \
        nvmlReturn_t check_result_ = check_device((device), __func__); \
        if (check_result_ != NVML_SUCCESS) return check_result_;       \
    } while (0)

#define REQUIRE(pointer) \
    do {                 \
        if (!(pointer)) return NVML_ERROR_INVALID_ARGUMENT; \
    } while (0)

static nvmlReturn_t reading(const mock_device *d, mock_field field, const mock_number **out) {
    *out = mock_value(d, field, scenario_time_s());
    return (*out)->present ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

static unsigned long long integer_or_zero(const mock_device *d, mock_field field) {
    const mock_number *n = mock_value(d, field, scenario_time_s());
    return n->present ? n->integer : 0;
}

static nvmlReturn_t copy_string(const char *text, char *out, unsigned int length) {
    REQUIRE(out);
    if (strlen(text) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    strcpy(out, text);
    return NVML_SUCCESS;
}

/* ---- system ----------------------------------------------------------------------------------- */

API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    if (!initialised()) return NVML_ERROR_UNINITIALIZED;
    return copy_string(g_scenario->driver_version, version, length);
}

API nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    if (!initialised()) return NVML_ERROR_UNINITIALIZED;
    return copy_string(g_scenario->nvml_version, version, length);
}

API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *version) {
    if (!initialised()) return NVML_ERROR_UNINITIALIZED;
    REQUIRE(version);
    if (!g_scenario->cuda_driver_version_set) return NVML_ERROR_NOT_SUPPORTED;
    *version = g_scenario->cuda_driver_version;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version) { return nvmlSystemGetCudaDriverVersion(version); }

/* ---- enumeration ------------------------------------------------------------------------------ */

API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    if (!initialised()) return NVML_ERROR_UNINITIALIZED;
    REQUIRE(count);
    *count = (unsigned int)g_scenario->device_count;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetCount(unsigned int *count) { return nvmlDeviceGetCount_v2(count); }

static nvmlReturn_t hand_out(mock_device *d, nvmlDevice_t *out, const char *function) {
    nvmlDevice_t handle = {d};
    nvmlReturn_t r = check_device(handle, function);
    if (r == NVML_SUCCESS) *out = handle;
    return r;
}

static nvmlReturn_t handle_by_index(unsigned int index, nvmlDevice_t *device, const char *function) {
    if (!initialised()) return NVML_ERROR_UNINITIALIZED;
    REQUIRE(device);
    if (index >= g_scenario->device_count) return NVML_ERROR_INVALID_ARGUMENT;
    return hand_out(g_scenario->devices[index], device, function);
}

API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    return handle_by_index(index, device, __func__);
}

API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) {
    return handle_by_index(index, device, __func__);
}

API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device) {
    if (!initialised()) return NVML_ERROR_UNINITIALIZED;
    REQUIRE(uuid && device);
    for (size_t i = 0; i < g_scenario->device_count; i++)
        if (strcmp(g_scenario->devices[i]->uuid, uuid) == 0) return hand_out(g_scenario->devices[i], device, __func__);
    for (size_t i = 0; i < g_scenario->mig_total; i++)
        if (strcmp(g_scenario->mig_pool[i].uuid, uuid) == 0) return hand_out(&g_scenario->mig_pool[i], device, __func__);
    return NVML_ERROR_NOT_FOUND;
}

API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, nvmlDevice_t *device) {
    if (!initialised()) return NVML_ERROR_UNINITIALIZED;
    REQUIRE(bus_id && device);
    unsigned int domain = 0, bus = 0, dev = 0;
    if (sscanf(bus_id, "%x:%x:%x", &domain, &bus, &dev) != 3) return NVML_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < g_scenario->device_count; i++) {
        mock_device *d = g_scenario->devices[i];
        if (d->pci_domain == domain && d->pci_bus == bus && d->pci_device == dev) return hand_out(d, device, __func__);
    }
    return NVML_ERROR_NOT_FOUND;
}

API nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index) {
    CHECK(device);
    REQUIRE(index);
    if (device.handle->parent) return NVML_ERROR_NOT_SUPPORTED; /* MIG devices have no NVML index */
    *index = device.handle->index;
    return NVML_SUCCESS;
}

/* ---- identity --------------------------------------------------------------------------------- */

API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    CHECK(device);
    return copy_string(device.handle->name, name, length);
}

API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    CHECK(device);
    return copy_string(device.handle->uuid, uuid, length);
}

static nvmlReturn_t pci_info(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    REQUIRE(pci);
    const mock_device *gpu = gpu_of(device.handle);
    memset(pci, 0, sizeof *pci);
    pci->domain = gpu->pci_domain;
    pci->bus = gpu->pci_bus;
    pci->device = gpu->pci_device;
    pci->pciDeviceId = gpu->pci_device_id;
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", gpu->pci_domain & 0xFFFFu, gpu->pci_bus, gpu->pci_device);
    snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", gpu->pci_domain, gpu->pci_bus, gpu->pci_device);
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    CHECK(device);
    return pci_info(device, pci);
}

API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci) {
    CHECK(device);
    return pci_info(device, pci);
}

/* ---- memory ----------------------------------------------------------------------------------- */

API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    CHECK(device);
    REQUIRE(memory);
    const mock_number *total;
    nvmlReturn_t r = reading(device.handle, F_MEMORY_TOTAL_BYTES, &total);
    if (r != NVML_SUCCESS) return r;
    /* v1's "used" counts the memory the driver reserves for itself (nvml.h, nvmlMemory_t). */
    unsigned long long used = integer_or_zero(device.handle, F_MEMORY_USED_BYTES) +
                              integer_or_zero(device.handle, F_MEMORY_RESERVED_BYTES);
    memory->total = total->integer;
    memory->used = used;
    memory->free = used < total->integer ? total->integer - used : 0;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
    CHECK(device);
    REQUIRE(memory);
    if (memory->version != MOCK_STRUCT_VERSION(nvmlMemory_v2_t, 2)) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    const mock_number *total;
    nvmlReturn_t r = reading(device.handle, F_MEMORY_TOTAL_BYTES, &total);
    if (r != NVML_SUCCESS) return r;
    unsigned long long used = integer_or_zero(device.handle, F_MEMORY_USED_BYTES);
    unsigned long long reserved = integer_or_zero(device.handle, F_MEMORY_RESERVED_BYTES);
    memory->total = total->integer;
    memory->reserved = reserved;
    memory->used = used;
    memory->free = used + reserved < total->integer ? total->integer - used - reserved : 0;
    return NVML_SUCCESS;
}

/* ---- utilisation, temperature, power, clocks -------------------------------------------------- */

static int whole_gpu_undefined(const mock_device *d) { return d->parent != NULL || d->mig_mode == 1; }

API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization) {
    CHECK(device);
    REQUIRE(utilization);
    /* In MIG mode whole-GPU utilisation is not defined (nvml.h: not supported with MIG enabled). */
    if (whole_gpu_undefined(device.handle)) return NVML_ERROR_NOT_SUPPORTED;
    const mock_number *gpu;
    nvmlReturn_t r = reading(device.handle, F_UTILIZATION_GPU_PERCENT, &gpu);
    if (r != NVML_SUCCESS) return r;
    utilization->gpu = (unsigned int)gpu->integer;
    utilization->memory = (unsigned int)integer_or_zero(device.handle, F_UTILIZATION_MEMORY_PERCENT);
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, unsigned int sensor, unsigned int *temperature) {
    CHECK(device);
    REQUIRE(temperature);
    if (sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
    const mock_number *t;
    nvmlReturn_t r = reading(gpu_of(device.handle), F_TEMPERATURE_C, &t);
    if (r == NVML_SUCCESS) *temperature = (unsigned int)t->integer;
    return r;
}

API nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_v1_t *temperature) {
    CHECK(device);
    REQUIRE(temperature);
    if (temperature->version != MOCK_STRUCT_VERSION(nvmlTemperature_v1_t, 1)) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (temperature->sensorType != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
    const mock_number *t;
    nvmlReturn_t r = reading(gpu_of(device.handle), F_TEMPERATURE_C, &t);
    if (r == NVML_SUCCESS) temperature->temperature = (int)t->integer;
    return r;
}

static nvmlReturn_t unsigned_reading(nvmlDevice_t device, mock_field field, unsigned int *out) {
    REQUIRE(out);
    const mock_number *n;
    nvmlReturn_t r = reading(gpu_of(device.handle), field, &n);
    if (r == NVML_SUCCESS) *out = (unsigned int)n->integer;
    return r;
}

API nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power_mw) {
    CHECK(device);
    return unsigned_reading(device, F_POWER_MW, power_mw);
}

API nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit_mw) {
    CHECK(device);
    return unsigned_reading(device, F_POWER_LIMIT_MW, limit_mw);
}

API nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit_mw) {
    CHECK(device);
    return unsigned_reading(device, F_POWER_LIMIT_MW, limit_mw);
}

API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, unsigned int type, unsigned int *clock_mhz) {
    CHECK(device);
    if (type == NVML_CLOCK_GRAPHICS || type == NVML_CLOCK_SM) return unsigned_reading(device, F_SM_CLOCK_MHZ, clock_mhz);
    if (type == NVML_CLOCK_MEM) return unsigned_reading(device, F_MEM_CLOCK_MHZ, clock_mhz);
    if (type == NVML_CLOCK_VIDEO) return NVML_ERROR_NOT_SUPPORTED;
    return NVML_ERROR_INVALID_ARGUMENT;
}

static nvmlReturn_t clock_reasons(nvmlDevice_t device, unsigned long long *reasons) {
    REQUIRE(reasons);
    const mock_number *n;
    nvmlReturn_t r = reading(gpu_of(device.handle), F_THROTTLE_REASONS, &n);
    if (r == NVML_SUCCESS) *reasons = n->integer;
    return r;
}

API nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons) {
    CHECK(device);
    return clock_reasons(device, reasons);
}

/* The name before NVML 12 (deprecated in 13): the same mask. */
API nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons) {
    CHECK(device);
    return clock_reasons(device, reasons);
}

API nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, unsigned int counter, unsigned int *kb_per_s) {
    CHECK(device);
    if (counter == NVML_PCIE_UTIL_TX_BYTES) return unsigned_reading(device, F_PCIE_TX_KB_PER_S, kb_per_s);
    if (counter == NVML_PCIE_UTIL_RX_BYTES) return unsigned_reading(device, F_PCIE_RX_KB_PER_S, kb_per_s);
    return NVML_ERROR_INVALID_ARGUMENT;
}

/* ---- processes -------------------------------------------------------------------------------- */

/* nvml.h's protocol: with *count too small (0 and a NULL array to ask), NVML_ERROR_INSUFFICIENT_SIZE
 * and the count needed; NVML_SUCCESS with 0 when nothing runs. */
#define FILL_PROCESSES(device, count, infos, fill)                                         \
    do {                                                                                   \
        CHECK(device);                                                                     \
        REQUIRE(count);                                                                    \
        size_t running_;                                                                   \
        const mock_process *procs_ = mock_processes((device).handle, scenario_time_s(), &running_); \
        if (*(count) < running_) {                                                         \
            *(count) = (unsigned int)running_;                                             \
            return NVML_ERROR_INSUFFICIENT_SIZE;                                           \
        }                                                                                  \
        if (running_ > 0 && !(infos)) return NVML_ERROR_INVALID_ARGUMENT;                  \
        for (size_t i_ = 0; i_ < running_; i_++) {                                         \
            const mock_process *p_ = &procs_[i_];                                          \
            fill;                                                                          \
        }                                                                                  \
        *(count) = (unsigned int)running_;                                                 \
        return NVML_SUCCESS;                                                               \
    } while (0)

#define USED_MEMORY(p) ((p)->used_memory_known ? (p)->used_memory_bytes : NVML_VALUE_NOT_AVAILABLE_ULL)

#define FILL_PROCESS_INFO                                      \
    {                                                          \
        infos[i_].pid = p_->pid;                               \
        infos[i_].usedGpuMemory = USED_MEMORY(p_);             \
        infos[i_].gpuInstanceId = NVML_INSTANCE_ID_NONE;       \
        infos[i_].computeInstanceId = NVML_INSTANCE_ID_NONE;   \
    }

API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos) {
    FILL_PROCESSES(device, count, infos, FILL_PROCESS_INFO);
}

/* _v2 takes the same struct as _v3 (nvml.h: nvmlProcessInfo_v2_t). */
API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos) {
    FILL_PROCESSES(device, count, infos, FILL_PROCESS_INFO);
}

API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v1_t *infos) {
    FILL_PROCESSES(device, count, infos, {
        infos[i_].pid = p_->pid;
        infos[i_].usedGpuMemory = USED_MEMORY(p_);
    });
}

API nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *samples,
                                                 unsigned int *count, unsigned long long last_seen_us) {
    (void)last_seen_us; /* every sample is stamped now: all are newer than any earlier read */
    CHECK(device);
    REQUIRE(count);
    if (whole_gpu_undefined(device.handle)) return NVML_ERROR_NOT_SUPPORTED; /* nvml.h: not with MIG */
    size_t running;
    const mock_process *procs = mock_processes(device.handle, scenario_time_s(), &running);
    size_t sampled = 0;
    for (size_t i = 0; i < running; i++) sampled += procs[i].sm_util_known;
    if (sampled == 0) return NVML_ERROR_NOT_FOUND;
    if (!samples || *count < sampled) {
        *count = (unsigned int)sampled;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    unsigned long long now = wall_us();
    size_t n = 0;
    for (size_t i = 0; i < running; i++) {
        if (!procs[i].sm_util_known) continue;
        memset(&samples[n], 0, sizeof samples[n]);
        samples[n].pid = procs[i].pid;
        samples[n].timeStamp = now;
        samples[n].smUtil = procs[i].sm_util_percent;
        n++;
    }
    *count = (unsigned int)n;
    return NVML_SUCCESS;
}

/* ---- topology --------------------------------------------------------------------------------- */

static int nvlinked(const mock_device *a, const mock_device *b) {
    for (size_t i = 0; i < a->peer_count; i++)
        if (strcmp(a->nvlink_peers[i], b->uuid) == 0) return 1;
    for (size_t i = 0; i < b->peer_count; i++)
        if (strcmp(b->nvlink_peers[i], a->uuid) == 0) return 1;
    return 0;
}

static int same(int a, int b) { return a >= 0 && a == b; }

static int common_ancestor(const mock_device *a, const mock_device *b) {
    if (a == b) return NVML_TOPOLOGY_INTERNAL;
    if (same(a->pcie_switch, b->pcie_switch)) return NVML_TOPOLOGY_SINGLE;
    if (same(a->host_bridge, b->host_bridge)) return NVML_TOPOLOGY_HOSTBRIDGE;
    if (same(a->numa_node, b->numa_node)) return NVML_TOPOLOGY_NODE;
    return NVML_TOPOLOGY_SYSTEM;
}

API nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2, int *level) {
    CHECK(device1);
    CHECK(device2);
    REQUIRE(level);
    if (device1.handle->parent || device2.handle->parent) return NVML_ERROR_NOT_SUPPORTED;
    *level = common_ancestor(device1.handle, device2.handle);
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2, unsigned int caps_index, int *status) {
    CHECK(device1);
    CHECK(device2);
    REQUIRE(status);
    const mock_device *a = device1.handle, *b = device2.handle;
    if (a->parent || b->parent) return NVML_ERROR_NOT_SUPPORTED;
    int linked = nvlinked(a, b);
    switch (caps_index) {
    case NVML_P2P_CAPS_INDEX_NVLINK:
        *status = linked ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
        return NVML_SUCCESS;
    case NVML_P2P_CAPS_INDEX_READ:
    case NVML_P2P_CAPS_INDEX_WRITE:
    case NVML_P2P_CAPS_INDEX_ATOMICS:
    case NVML_P2P_CAPS_INDEX_PCI:
        /* Peer access over PCIe needs both GPUs under one host bridge; NVLink always allows it. */
        *status = linked || common_ancestor(a, b) <= NVML_TOPOLOGY_HOSTBRIDGE ? NVML_P2P_STATUS_OK
                                                                               : NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED;
        return NVML_SUCCESS;
    default:
        return NVML_ERROR_INVALID_ARGUMENT;
    }
}

/* ---- MIG -------------------------------------------------------------------------------------- */

API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current, unsigned int *pending) {
    CHECK(device);
    REQUIRE(current && pending);
    if (device.handle->parent || device.handle->mig_mode < 0) return NVML_ERROR_NOT_SUPPORTED;
    *current = *pending = (unsigned int)device.handle->mig_mode;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *is_mig) {
    CHECK(device);
    REQUIRE(is_mig);
    *is_mig = device.handle->parent != NULL;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count) {
    CHECK(device);
    REQUIRE(count);
    if (device.handle->parent || device.handle->mig_mode < 0) return NVML_ERROR_NOT_SUPPORTED;
    *count = MOCK_MAX_MIG; /* an A100 or H100 splits into at most seven GPU instances */
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *mig) {
    CHECK(device);
    REQUIRE(mig);
    const mock_device *gpu = device.handle;
    if (gpu->parent || gpu->mig_mode != 1) return NVML_ERROR_INVALID_ARGUMENT;
    if (index >= gpu->mig_count) return NVML_ERROR_NOT_FOUND;
    return hand_out(gpu->mig[index], mig, __func__);
}

API nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t mig, nvmlDevice_t *device) {
    CHECK(mig);
    REQUIRE(device);
    if (!mig.handle->parent) return NVML_ERROR_INVALID_ARGUMENT;
    device->handle = mig.handle->parent;
    return NVML_SUCCESS;
}

/* ---- GPM (Hopper and newer) ------------------------------------------------------------------- */

#define GPM_MAGIC 0x47504d31u /* "GPM1": marks buffers this library allocated */

struct mock_gpm_sample {
    unsigned int magic;
    const mock_device *device; /* NULL until nvmlGpmSampleGet */
    double t_s;
};

static int has_gpm(const mock_device *d) {
    for (size_t i = 0; i < d->phase_count; i++)
        for (int f = F_GPM_SM_UTIL_PERCENT; f <= F_GPM_ANY_TENSOR_UTIL_PERCENT; f++)
            if (d->phases[i].values[f].present) return 1;
    return 0;
}

API nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *support) {
    CHECK(device);
    REQUIRE(support);
    if (support->version != NVML_GPM_SUPPORT_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    support->isSupportedDevice = has_gpm(gpu_of(device.handle));
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *sample) {
    if (!initialised()) return NVML_ERROR_UNINITIALIZED;
    REQUIRE(sample);
    struct mock_gpm_sample *s = calloc(1, sizeof *s);
    if (!s) return NVML_ERROR_MEMORY;
    s->magic = GPM_MAGIC;
    sample->handle = s;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample) {
    REQUIRE(sample.handle && sample.handle->magic == GPM_MAGIC);
    sample.handle->magic = 0;
    free(sample.handle);
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t sample) {
    CHECK(device);
    REQUIRE(sample.handle && sample.handle->magic == GPM_MAGIC);
    if (!has_gpm(gpu_of(device.handle))) return NVML_ERROR_NOT_SUPPORTED;
    sample.handle->device = device.handle;
    sample.handle->t_s = scenario_time_s();
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *request) {
    if (!initialised()) return NVML_ERROR_UNINITIALIZED;
    REQUIRE(request);
    if (request->version != NVML_GPM_METRICS_GET_VERSION) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    const struct mock_gpm_sample *a = request->sample1.handle, *b = request->sample2.handle;
    REQUIRE(a && b && a->magic == GPM_MAGIC && b->magic == GPM_MAGIC);
    if (!a->device || a->device != b->device) return NVML_ERROR_INVALID_ARGUMENT;
    for (unsigned int i = 0; i < request->numMetrics; i++) {
        nvmlGpmMetric_t *metric = &request->metrics[i];
        mock_field field;
        switch (metric->metricId) {
        case NVML_GPM_METRIC_SM_UTIL: field = F_GPM_SM_UTIL_PERCENT; break;
        case NVML_GPM_METRIC_DRAM_BW_UTIL: field = F_GPM_DRAM_BW_UTIL_PERCENT; break;
        case NVML_GPM_METRIC_ANY_TENSOR_UTIL: field = F_GPM_ANY_TENSOR_UTIL_PERCENT; break;
        default: metric->nvmlReturn = NVML_ERROR_NOT_SUPPORTED; continue;
        }
        /* A real GPM metric is the rate between the two samples; the mock gives the later value. */
        const mock_number *n = mock_value(gpu_of(b->device), field, b->t_s);
        metric->nvmlReturn = n->present ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
        metric->value = n->present ? n->number : 0.0;
        memset(&metric->metricInfo, 0, sizeof metric->metricInfo);
    }
    return NVML_SUCCESS;
}
