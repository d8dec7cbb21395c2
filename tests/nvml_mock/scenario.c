/* Reading a scenario file into mock_scenario; every problem is one line naming the field. */
#include "scenario.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "nvml_types.h"

const char *const mock_field_names[F_COUNT] = {
    "memory_total_bytes",
    "memory_used_bytes",
    "memory_reserved_bytes",
    "utilization_gpu_percent",
    "utilization_memory_percent",
    "temperature_c",
    "power_mw",
    "power_limit_mw",
    "sm_clock_mhz",
    "mem_clock_mhz",
    "throttle_reasons",
    "pcie_rx_kb_per_s",
    "pcie_tx_kb_per_s",
    "gpm_sm_util_percent",
    "gpm_dram_bw_util_percent",
    "gpm_any_tensor_util_percent",
};

static const char *const device_keys[] = {
    "name", "uuid", "pci_bus_id", "pci_device_id", "mig_mode", "mig_devices", "pcie_switch",
    "host_bridge", "numa_node", "nvlink_peers", "lost_after_s", "errors", "processes", "timeline", NULL,
};
static const char *const top_keys[] = {
    "driver_version", "nvml_version", "cuda_driver_version", "init_error", "devices", NULL,
};
static const char *const mig_keys[] = {"name", "uuid", "memory_total_bytes", "memory_used_bytes", NULL};
static const char *const process_keys[] = {"pid", "used_memory_bytes", "sm_util_percent", NULL};

int mock_error_code(const char *name) {
#define MOCK_NVML_NAME(code_name, value, text) \
    if (strcmp(name, #code_name) == 0 || strcmp(name, "NVML_" #code_name) == 0) return value;
    MOCK_NVML_RETURN_CODES(MOCK_NVML_NAME)
#undef MOCK_NVML_NAME
    /* The short names a scenario writer would use: "GPU_IS_LOST" for NVML_ERROR_GPU_IS_LOST. */
    char longer[96];
    snprintf(longer, sizeof longer, "ERROR_%s", name);
#define MOCK_NVML_SHORT(code_name, value, text) \
    if (strcmp(longer, #code_name) == 0) return value;
    MOCK_NVML_RETURN_CODES(MOCK_NVML_SHORT)
#undef MOCK_NVML_SHORT
    return -1;
}

typedef struct {
    char *error;
    size_t size;
    int failed;
} problems;

static void problem(problems *p, const char *format, ...) {
    if (p->failed) return;
    va_list args;
    va_start(args, format);
    vsnprintf(p->error, p->size, format, args);
    va_end(args);
    p->failed = 1;
}

static int known_key(const char *key, const char *const *keys) {
    for (; *keys; keys++)
        if (strcmp(key, *keys) == 0) return 1;
    return 0;
}

static int is_field(const char *key) {
    for (int f = 0; f < F_COUNT; f++)
        if (strcmp(key, mock_field_names[f]) == 0) return 1;
    return 0;
}

static void check_keys(problems *p, const json_value *object, const char *where, const char *const *keys,
                       int allow_fields) {
    for (size_t i = 0; i < object->count; i++) {
        const char *key = object->keys[i];
        if (!known_key(key, keys) && !(allow_fields && is_field(key)))
            problem(p, "%s.%s: unknown field", where, key);
    }
}

static void copy_text(problems *p, const json_value *value, const char *where, char *out, size_t size) {
    if (value->kind != JSON_STRING) { problem(p, "%s: expected a string", where); return; }
    if (strlen(value->string) >= size) { problem(p, "%s: longer than %zu bytes", where, size - 1); return; }
    strcpy(out, value->string);
}

static int read_number(problems *p, const json_value *value, const char *where, mock_number *out) {
    if (value->kind != JSON_NUMBER || value->number < 0) {
        problem(p, "%s: expected a number >= 0", where);
        return 0;
    }
    out->present = 1;
    out->number = value->number;
    out->integer = value->is_integer ? value->uinteger : (unsigned long long)value->number;
    return 1;
}

static int read_int(problems *p, const json_value *object, const char *key, const char *where, int fallback) {
    const json_value *v = json_get(object, key);
    if (!v) return fallback;
    if (v->kind != JSON_NUMBER || !v->is_integer) {
        problem(p, "%s.%s: expected an integer", where, key);
        return fallback;
    }
    return (int)v->integer;
}

static void read_processes(problems *p, const json_value *list, const char *where, mock_phase *phase) {
    if (list->kind != JSON_ARRAY) { problem(p, "%s: expected a list", where); return; }
    if (list->count > MOCK_MAX_PROCESSES) { problem(p, "%s: more than %d processes", where, MOCK_MAX_PROCESSES); return; }
    phase->has_processes = 1;
    phase->process_count = list->count;
    for (size_t i = 0; i < list->count; i++) {
        char at[160];
        snprintf(at, sizeof at, "%s[%zu]", where, i);
        const json_value *item = list->items[i];
        if (item->kind != JSON_OBJECT) { problem(p, "%s: expected an object", at); return; }
        check_keys(p, item, at, process_keys, 0);
        mock_process *proc = &phase->processes[i];
        const json_value *pid = json_get(item, "pid");
        if (!pid || pid->kind != JSON_NUMBER || !pid->is_integer || pid->integer <= 0) {
            problem(p, "%s.pid: expected a process id", at);
            return;
        }
        proc->pid = (unsigned int)pid->integer;
        const json_value *used = json_get(item, "used_memory_bytes");
        if (used && used->kind != JSON_NULL) {
            mock_number n = {0};
            char field[200];
            snprintf(field, sizeof field, "%s.used_memory_bytes", at);
            if (read_number(p, used, field, &n)) { proc->used_memory_known = 1; proc->used_memory_bytes = n.integer; }
        }
        const json_value *sm = json_get(item, "sm_util_percent");
        if (sm && sm->kind != JSON_NULL) {
            mock_number n = {0};
            char field[200];
            snprintf(field, sizeof field, "%s.sm_util_percent", at);
            if (read_number(p, sm, field, &n)) { proc->sm_util_known = 1; proc->sm_util_percent = (unsigned int)n.integer; }
        }
    }
}

/* The readings named in `object` (the device itself or a timeline entry) into `phase`. */
static void read_values(problems *p, const json_value *object, const char *where, mock_phase *phase) {
    for (int f = 0; f < F_COUNT; f++) {
        const json_value *v = json_get(object, mock_field_names[f]);
        if (!v) continue;
        char at[200];
        snprintf(at, sizeof at, "%s.%s", where, mock_field_names[f]);
        if (v->kind == JSON_NULL) { phase->values[f].present = -1; continue; } /* unsupported from here on */
        read_number(p, v, at, &phase->values[f]);
    }
    const json_value *procs = json_get(object, "processes");
    if (procs) {
        char at[160];
        snprintf(at, sizeof at, "%s.processes", where);
        read_processes(p, procs, at, phase);
    }
}

static void parse_bus_id(mock_device *d) {
    unsigned int domain = 0, bus = 0, device = 0;
    if (sscanf(d->pci_bus_id, "%x:%x:%x", &domain, &bus, &device) == 3) {
        d->pci_domain = domain;
        d->pci_bus = bus;
        d->pci_device = device;
    }
}

static void read_device(problems *p, const json_value *obj, size_t index, mock_device *d, mock_scenario *s) {
    char where[64];
    snprintf(where, sizeof where, "devices[%zu]", index);
    if (obj->kind != JSON_OBJECT) { problem(p, "%s: expected an object", where); return; }
    check_keys(p, obj, where, device_keys, 1);
    d->index = (unsigned int)index;
    d->mig_mode = -1;
    d->pcie_switch = d->host_bridge = d->numa_node = -1;
    const json_value *v;
    char at[160];
    if ((v = json_get(obj, "name"))) { snprintf(at, sizeof at, "%s.name", where); copy_text(p, v, at, d->name, sizeof d->name); }
    else problem(p, "%s.name: missing", where);
    if ((v = json_get(obj, "uuid"))) { snprintf(at, sizeof at, "%s.uuid", where); copy_text(p, v, at, d->uuid, sizeof d->uuid); }
    else problem(p, "%s.uuid: missing", where);
    /* Each GPU on its own bus by default: NVML numbers GPUs in PCI bus order. */
    snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "00000000:%02X:00.0", (unsigned int)(0x10 + 0x10 * index));
    if ((v = json_get(obj, "pci_bus_id"))) { snprintf(at, sizeof at, "%s.pci_bus_id", where); copy_text(p, v, at, d->pci_bus_id, sizeof d->pci_bus_id); }
    parse_bus_id(d);
    d->pci_device_id = (unsigned int)read_int(p, obj, "pci_device_id", where, 0);
    if ((v = json_get(obj, "mig_mode"))) {
        if (v->kind != JSON_BOOL) problem(p, "%s.mig_mode: expected true or false", where);
        else d->mig_mode = v->boolean;
    }
    d->pcie_switch = read_int(p, obj, "pcie_switch", where, -1);
    d->host_bridge = read_int(p, obj, "host_bridge", where, -1);
    d->numa_node = read_int(p, obj, "numa_node", where, -1);
    if ((v = json_get(obj, "nvlink_peers"))) {
        if (v->kind != JSON_ARRAY || v->count > MOCK_MAX_PEERS) problem(p, "%s.nvlink_peers: expected a list of UUIDs", where);
        else {
            d->peer_count = v->count;
            for (size_t i = 0; i < v->count; i++) {
                snprintf(at, sizeof at, "%s.nvlink_peers[%zu]", where, i);
                copy_text(p, v->items[i], at, d->nvlink_peers[i], MOCK_TEXT);
            }
        }
    }
    if ((v = json_get(obj, "lost_after_s"))) {
        if (v->kind != JSON_NUMBER || v->number < 0) problem(p, "%s.lost_after_s: expected seconds >= 0", where);
        else { d->lost_after_set = 1; d->lost_after_s = v->number; }
    }
    if ((v = json_get(obj, "errors"))) {
        if (v->kind != JSON_OBJECT || v->count > MOCK_MAX_ERRORS) problem(p, "%s.errors: expected {function: error}", where);
        else {
            d->error_count = v->count;
            for (size_t i = 0; i < v->count; i++) {
                mock_error *e = &d->errors[i];
                snprintf(at, sizeof at, "%s.errors.%s", where, v->keys[i]);
                if (strlen(v->keys[i]) >= sizeof e->function) { problem(p, "%s: name too long", at); break; }
                strcpy(e->function, v->keys[i]);
                e->code = v->items[i]->kind == JSON_STRING ? mock_error_code(v->items[i]->string) : -1;
                if (e->code < 0) problem(p, "%s: expected an NVML error name such as \"NOT_SUPPORTED\"", at);
            }
        }
    }
    d->phase_count = 1;
    read_values(p, obj, where, &d->phases[0]);
    if ((v = json_get(obj, "timeline"))) {
        if (v->kind != JSON_ARRAY || v->count + 1 > MOCK_MAX_PHASES) {
            problem(p, "%s.timeline: expected a list of at most %d entries", where, MOCK_MAX_PHASES - 1);
            return;
        }
        for (size_t i = 0; i < v->count; i++) {
            const json_value *entry = v->items[i];
            snprintf(at, sizeof at, "%s.timeline[%zu]", where, i);
            if (entry->kind != JSON_OBJECT) { problem(p, "%s: expected an object", at); return; }
            static const char *const timeline_keys[] = {"after_s", "processes", NULL};
            check_keys(p, entry, at, timeline_keys, 1);
            mock_phase *phase = &d->phases[d->phase_count];
            const json_value *after = json_get(entry, "after_s");
            if (!after || after->kind != JSON_NUMBER || after->number < 0) { problem(p, "%s.after_s: expected seconds >= 0", at); return; }
            phase->after_s = after->number;
            if (phase->after_s < d->phases[d->phase_count - 1].after_s) { problem(p, "%s.after_s: earlier than the entry before", at); return; }
            read_values(p, entry, at, phase);
            d->phase_count++;
        }
    }
    if ((v = json_get(obj, "mig_devices"))) {
        if (v->kind != JSON_ARRAY || v->count > MOCK_MAX_MIG) { problem(p, "%s.mig_devices: expected a list of at most %d", where, MOCK_MAX_MIG); return; }
        for (size_t i = 0; i < v->count; i++) {
            const json_value *m = v->items[i];
            snprintf(at, sizeof at, "%s.mig_devices[%zu]", where, i);
            if (m->kind != JSON_OBJECT) { problem(p, "%s: expected an object", at); return; }
            check_keys(p, m, at, mig_keys, 0);
            mock_device *mig = &s->mig_pool[s->mig_total++];
            mig->index = (unsigned int)i;
            mig->parent = d;
            mig->mig_mode = -1;
            mig->pcie_switch = mig->host_bridge = mig->numa_node = -1;
            mig->phase_count = 1;
            char field[200];
            const json_value *x;
            if ((x = json_get(m, "name"))) { snprintf(field, sizeof field, "%s.name", at); copy_text(p, x, field, mig->name, MOCK_TEXT); }
            if ((x = json_get(m, "uuid"))) { snprintf(field, sizeof field, "%s.uuid", at); copy_text(p, x, field, mig->uuid, MOCK_TEXT); }
            else problem(p, "%s.uuid: missing", at);
            read_values(p, m, at, &mig->phases[0]);
            d->mig[d->mig_count++] = mig;
        }
    }
}

static char *read_file(const char *path, char *error, size_t size) {
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(error, size, "cannot open the scenario file"); return NULL; }
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = length >= 0 ? malloc((size_t)length + 1) : NULL;
    if (!text || fread(text, 1, (size_t)length, f) != (size_t)length) {
        snprintf(error, size, "cannot read the scenario file");
        free(text);
        fclose(f);
        return NULL;
    }
    text[length] = '\0';
    fclose(f);
    return text;
}

mock_scenario *mock_scenario_load(const char *path, char *error, size_t error_size) {
    char *text = read_file(path, error, error_size);
    if (!text) return NULL;
    json_value *root = json_parse(text, error, error_size);
    free(text);
    if (!root) return NULL;
    problems p = {error, error_size, 0};
    mock_scenario *s = calloc(1, sizeof *s);
    if (s) s->mig_pool = calloc(MOCK_MAX_DEVICES * MOCK_MAX_MIG, sizeof *s->mig_pool);
    if (!s || !s->mig_pool) { problem(&p, "out of memory"); goto done; }
    if (root->kind != JSON_OBJECT) { problem(&p, "the scenario must be a JSON object"); goto done; }
    check_keys(&p, root, "scenario", top_keys, 0);
    const json_value *v;
    strcpy(s->driver_version, "550.54.15");
    if ((v = json_get(root, "driver_version"))) copy_text(&p, v, "driver_version", s->driver_version, sizeof s->driver_version);
    /* NVML's own version is "<CUDA major>.<driver>" on Linux drivers, e.g. "12.550.54.15". */
    snprintf(s->nvml_version, sizeof s->nvml_version, "12.%s", s->driver_version);
    if ((v = json_get(root, "nvml_version"))) copy_text(&p, v, "nvml_version", s->nvml_version, sizeof s->nvml_version);
    if ((v = json_get(root, "cuda_driver_version"))) {
        if (v->kind != JSON_NUMBER || !v->is_integer) problem(&p, "cuda_driver_version: expected an integer such as 12040");
        else { s->cuda_driver_version_set = 1; s->cuda_driver_version = (int)v->integer; }
    }
    if ((v = json_get(root, "init_error"))) {
        s->init_error = v->kind == JSON_STRING ? mock_error_code(v->string) : -1;
        if (s->init_error <= 0) problem(&p, "init_error: expected an NVML error name such as \"DRIVER_NOT_LOADED\"");
    }
    v = json_get(root, "devices");
    if (!v) { problem(&p, "devices: missing (a list, possibly empty)"); goto done; }
    if (v->kind != JSON_ARRAY || v->count > MOCK_MAX_DEVICES) { problem(&p, "devices: expected a list of at most %d", MOCK_MAX_DEVICES); goto done; }
    for (size_t i = 0; i < v->count && !p.failed; i++) {
        s->devices[i] = calloc(1, sizeof(mock_device));
        if (!s->devices[i]) { problem(&p, "out of memory"); break; }
        s->device_count = i + 1;
        read_device(&p, v->items[i], i, s->devices[i], s);
    }
done:
    json_free(root);
    if (p.failed) { mock_scenario_free(s); return NULL; }
    return s;
}

void mock_scenario_free(mock_scenario *s) {
    if (!s) return;
    for (size_t i = 0; i < s->device_count; i++) free(s->devices[i]);
    free(s->mig_pool);
    free(s);
}

const mock_number *mock_value(const mock_device *d, mock_field field, double t_s) {
    static const mock_number absent = {0, 0, 0.0};
    const mock_number *found = &absent;
    for (size_t i = 0; i < d->phase_count && d->phases[i].after_s <= t_s; i++)
        if (d->phases[i].values[field].present) found = &d->phases[i].values[field];
    return found->present > 0 ? found : &absent;
}

const mock_process *mock_processes(const mock_device *d, double t_s, size_t *count) {
    const mock_phase *found = NULL;
    for (size_t i = 0; i < d->phase_count && d->phases[i].after_s <= t_s; i++)
        if (d->phases[i].has_processes) found = &d->phases[i];
    *count = found ? found->process_count : 0;
    return found ? found->processes : NULL;
}
