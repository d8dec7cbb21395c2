/* The machine the mock NVML library pretends to be, read from the JSON file named by
 * MOCK_NVML_SCENARIO (the fields are listed in README.md next to this file).
 */
#ifndef MOCK_NVML_SCENARIO_H
#define MOCK_NVML_SCENARIO_H

#include <stddef.h>

#define MOCK_MAX_DEVICES 16
#define MOCK_MAX_MIG 7
#define MOCK_MAX_PROCESSES 64
#define MOCK_MAX_PHASES 32
#define MOCK_MAX_ERRORS 16
#define MOCK_MAX_PEERS 16
#define MOCK_TEXT 96

/* The readings that may change over time; each is absent (NVML answers NOT_SUPPORTED) or a number. */
typedef enum {
    F_MEMORY_TOTAL_BYTES,
    F_MEMORY_USED_BYTES,
    F_MEMORY_RESERVED_BYTES,
    F_UTILIZATION_GPU_PERCENT,
    F_UTILIZATION_MEMORY_PERCENT,
    F_TEMPERATURE_C,
    F_POWER_MW,
    F_POWER_LIMIT_MW,
    F_SM_CLOCK_MHZ,
    F_MEM_CLOCK_MHZ,
    F_THROTTLE_REASONS,
    F_PCIE_RX_KB_PER_S,
    F_PCIE_TX_KB_PER_S,
    F_GPM_SM_UTIL_PERCENT,
    F_GPM_DRAM_BW_UTIL_PERCENT,
    F_GPM_ANY_TENSOR_UTIL_PERCENT,
    F_COUNT
} mock_field;

extern const char *const mock_field_names[F_COUNT];

typedef struct {
    int present;
    unsigned long long integer; /* exact for integers */
    double number;
} mock_number;

typedef struct {
    unsigned int pid;
    int used_memory_known; /* 0: NVML's "not available" */
    unsigned long long used_memory_bytes;
    int sm_util_known;
    unsigned int sm_util_percent;
} mock_process;

/* From `after_s` seconds on, these values replace the earlier ones. */
typedef struct {
    double after_s;
    mock_number values[F_COUNT];
    int has_processes;
    size_t process_count;
    mock_process processes[MOCK_MAX_PROCESSES];
} mock_phase;

typedef struct {
    char function[64];
    int code; /* nvmlReturn_t */
} mock_error;

typedef struct mock_device mock_device;

struct mock_device {
    unsigned int index; /* NVML index; for a MIG device, its index under the parent */
    mock_device *parent; /* MIG devices only */
    char name[MOCK_TEXT];
    char uuid[MOCK_TEXT];
    char pci_bus_id[32];
    unsigned int pci_domain, pci_bus, pci_device, pci_device_id;
    int mig_mode; /* -1: no MIG on this GPU; 0 disabled; 1 enabled */
    size_t mig_count;
    mock_device *mig[MOCK_MAX_MIG];
    int pcie_switch, host_bridge, numa_node; /* -1: unknown */
    size_t peer_count;
    char nvlink_peers[MOCK_MAX_PEERS][MOCK_TEXT];
    int lost_after_set;
    double lost_after_s;
    size_t error_count;
    mock_error errors[MOCK_MAX_ERRORS];
    size_t phase_count; /* phases[0] is the start */
    mock_phase phases[MOCK_MAX_PHASES];
};

typedef struct {
    char driver_version[80];
    char nvml_version[80];
    int cuda_driver_version_set;
    int cuda_driver_version;
    int init_error; /* nvmlInit fails with this code when nonzero */
    size_t device_count;
    mock_device *devices[MOCK_MAX_DEVICES];
    size_t mig_total;
    mock_device *mig_pool; /* every MIG device, allocated in one block */
} mock_scenario;

/* Read the scenario file. NULL with a one-line reason in `error` when it cannot be used. */
mock_scenario *mock_scenario_load(const char *path, char *error, size_t error_size);
void mock_scenario_free(mock_scenario *scenario);

/* The value of `field` at `t_s` seconds after loading (the last phase started by then wins). */
const mock_number *mock_value(const mock_device *device, mock_field field, double t_s);
/* The processes at `t_s`; sets *count. */
const mock_process *mock_processes(const mock_device *device, double t_s, size_t *count);

/* NVML return code of an error name as written in a scenario ("GPU_IS_LOST", "NOT_SUPPORTED"...);
 * -1 when the name is unknown. */
int mock_error_code(const char *name);

#endif
