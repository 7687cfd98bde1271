/*
 * cubind-probe: the GPU driver and its GPUs (cubind_driver_info, cubind_gpu_info), each fact with
 * where it came from, in the terms nvidia-smi uses (memory in MiB, UUIDs as GPU-..., MIG modes); and
 * the report's first words, whether this machine can run CUDA work and why not (cubind_gpu_count).
 */
#include <stdio.h>
#include <string.h>

#include "cubind/cubind.h"

#include "output.h"
#include "probe.h"

static const char *mig_name(cubind_mig_mode mode)
{
    switch (mode) {
    case CUBIND_MIG_DISABLED: return "disabled";
    case CUBIND_MIG_ENABLED: return "enabled";
    case CUBIND_MIG_UNSUPPORTED: return "unsupported";
    case CUBIND_MIG_UNKNOWN: break;
    }
    return NULL;
}

static const char *source(cubind_fact_source s)
{
    return s == CUBIND_SOURCE_NONE ? NULL : cubind_fact_source_name(s);
}

int probe_no_gpu(char *why, size_t size)
{
    static const char prefix[] = "cubind_gpu_count: ";
    const char *message, *tried;
    int count = 0;
    if (cubind_gpu_count(&count) == CUBIND_OK && count > 0) {
        snprintf(why, size, "%d GPU%s", count, count == 1 ? "" : "s");
        return 0;
    }
    message = cubind_last_error()->message;
    if (strncmp(message, prefix, sizeof prefix - 1) == 0)
        message += sizeof prefix - 1;
    tried = strstr(message, "; tried: "); /* the places tried are the driver's, said once below */
    snprintf(why, size, "%.*s", tried != NULL ? (int)(tried - message) : (int)strlen(message), message);
    cubind_clear_error();
    return 1;
}

/* The driver's file a program would load, into `path` (empty when none is found), and whether this
 * build binds the driver API: the file cubind loads; for a build that leaves it out (a subset), the
 * first copy of its soname found here (cubind_copies_find, which locates every configured library). */
static int driver_file(char *path, size_t size)
{
    cubind_library driver = cubind_library_from_name("driver");
    struct cubind_library_info info = {.size = sizeof info};
    struct cubind_copies_options options = {.size = sizeof options, .flags = CUBIND_COPIES_NO_QUERY, .library = "driver"};
    struct cubind_copy copy = {.size = sizeof copy};
    cubind_copies *copies = NULL;
    path[0] = '\0';
    cubind_library_info(driver, &info);
    if (info.functions > 0) { /* bound: what cubind found, or nothing */
        snprintf(path, size, "%s", info.found ? info.path : "");
        return 1;
    }
    if (cubind_copies_find(&options, &copies) == CUBIND_OK && cubind_copies_get(copies, 0, &copy) == CUBIND_OK)
        snprintf(path, size, "%s", copy.path);
    cubind_copies_free(copies);
    cubind_clear_error();
    return 0;
}

/* The headline: "this machine cannot run CUDA work: no CUDA driver: ...", or "can ...: 1 GPU, ...";
 * for a build that leaves the driver API out, a second line says so, with the driver's file. */
void machine_section(struct probe *probe)
{
    struct cubind_driver_info d = {.size = sizeof d};
    char why[CUBIND_ERROR_MESSAGE_MAX], file[4096];
    int no_gpu = probe_no_gpu(why, sizeof why), bound = driver_file(file, sizeof file);
    cubind_driver_info(&d);
    if (probe->json) {
        fprintf(probe_out, "{\"can_run_cuda\":%s,\"gpu_count\":%d", no_gpu ? "false" : "true",
                d.gpu_count > 0 ? d.gpu_count : 0);
        json_member("reason", no_gpu ? why : NULL);
        json_member("driver_file", file[0] ? file : NULL);
        fprintf(probe_out, ",\"driver_in_build\":%s}", bound ? "true" : "false");
        return;
    }
    if (no_gpu) {
        fprintf(probe_out, "this machine cannot run CUDA work: ");
        text_string(why);
        fprintf(probe_out, "%s\n", d.driver_error != NULL && strstr(d.driver_error, "; tried: ") != NULL
                                        ? " (where it was looked for: below)" : "");
    } else {
        fprintf(probe_out, "this machine can run CUDA work: %s", why);
        if (d.release != NULL) {
            fprintf(probe_out, ", driver ");
            text_string(d.release);
        }
        if (d.cuda_major >= 0)
            fprintf(probe_out, " (CUDA %d.%d)", d.cuda_major, d.cuda_minor);
        probe_char('\n');
    }
    if (!bound) {
        fprintf(probe_out, "    (this build of cubind leaves the driver API out; the driver's file here: ");
        text_string(file[0] ? file : "none found");
        fprintf(probe_out, ")\n");
    }
}

/* An error of NVML or of the driver API; when it is the library's load error and the libraries'
 * section listed that library, the places tried are not said again. */
static void driver_error_text(const struct probe *probe, const char *label, const char *error, const char *library)
{
    cubind_library lib = cubind_library_from_name(library);
    const char *tried = strstr(error, "; tried: ");
    fprintf(probe_out, "    %s: ", label);
    if (tried != NULL && lib != CUBIND_LIB_NONE && probe_covers(probe, lib)) {
        char head[CUBIND_ERROR_MESSAGE_MAX];
        snprintf(head, sizeof head, "%.*s", (int)(tried - error), error);
        text_string(head);
        fprintf(probe_out, " (the places tried: under %s above)\n", library);
        return;
    }
    text_string(error);
    probe_char('\n');
}

static void driver_text(const struct probe *probe)
{
    struct cubind_driver_info d = {.size = sizeof d};
    cubind_driver_info(&d);
    fprintf(probe_out, "\ndriver      ");
    if (d.release != NULL) {
        text_string(d.release);
        fprintf(probe_out, " (%s)", cubind_fact_source_name(d.release_source));
    } else {
        fprintf(probe_out, "release unknown");
    }
    if (d.cuda_major >= 0)
        fprintf(probe_out, "; supports CUDA %d.%d (%s)", d.cuda_major, d.cuda_minor, cubind_fact_source_name(d.cuda_source));
    if (d.gpu_count >= 0)
        fprintf(probe_out, "; %d GPU%s (%s)", d.gpu_count, d.gpu_count == 1 ? "" : "s", cubind_fact_source_name(d.gpu_count_source));
    probe_char('\n');
    if (d.nvml_error != NULL)
        driver_error_text(probe, "NVML", d.nvml_error, "nvml");
    if (d.driver_error != NULL)
        driver_error_text(probe, "driver API", d.driver_error, "driver");
}

static void gpus_text(void)
{
    struct cubind_driver_info d = {.size = sizeof d};
    int i;
    cubind_driver_info(&d);
    for (i = 0; i < d.gpu_count; ++i) {
        struct cubind_gpu_info g = {.size = sizeof g};
        if (cubind_gpu_info(i, &g) != CUBIND_OK)
            continue;
        fprintf(probe_out, "\nGPU %d       ", i);
        text_string(g.name[0] ? g.name : "(name unknown)");
        fprintf(probe_out, " (%s)\n    uuid: ", cubind_fact_source_name(g.name_source));
        text_string(g.uuid[0] ? g.uuid : "unknown");
        fprintf(probe_out, " (%s)\n", cubind_fact_source_name(g.uuid_source));
        if (g.compute_major >= 0)
            fprintf(probe_out, "    compute capability: %d.%d (%s)\n", g.compute_major, g.compute_minor,
                   cubind_fact_source_name(g.compute_source));
        if (g.memory_total != 0)
            fprintf(probe_out, "    memory: %llu MiB (%s)\n", g.memory_total / (1024ull * 1024ull),
                   cubind_fact_source_name(g.memory_source));
        if (g.mig_current != CUBIND_MIG_UNKNOWN)
            fprintf(probe_out, "    MIG: current %s, pending %s (%s)\n", mig_name(g.mig_current), mig_name(g.mig_pending),
                   cubind_fact_source_name(g.mig_source));
        if (g.pci_bus_id[0]) {
            fprintf(probe_out, "    PCI bus id: ");
            text_string(g.pci_bus_id);
            fprintf(probe_out, " (%s)\n", cubind_fact_source_name(g.pci_source));
        }
        if (g.nvml_index >= 0)
            fprintf(probe_out, "    NVML index: %d\n", g.nvml_index);
    }
}

static void json_int_or_null(const char *key, long long value, int known)
{
    fprintf(probe_out, ",\"%s\":", key);
    if (known)
        fprintf(probe_out, "%lld", value);
    else
        fprintf(probe_out, "null");
}

static void driver_json(void)
{
    struct cubind_driver_info d = {.size = sizeof d};
    cubind_driver_info(&d);
    fprintf(probe_out, "{\"release\":");
    json_string(d.release);
    fprintf(probe_out, ",\"release_version\":");
    if (d.release != NULL)
        json_version(d.release_major, d.release_minor, d.release_patch);
    else
        fprintf(probe_out, "null");
    json_member("release_source", source(d.release_source));
    fprintf(probe_out, ",\"cuda\":");
    if (d.cuda_major >= 0)
        json_version(d.cuda_major, d.cuda_minor, -1);
    else
        fprintf(probe_out, "null");
    json_member("cuda_source", source(d.cuda_source));
    json_int_or_null("gpu_count", d.gpu_count, d.gpu_count >= 0);
    json_member("gpu_count_source", source(d.gpu_count_source));
    json_member("nvml_error", d.nvml_error);
    json_member("driver_error", d.driver_error);
    probe_char('}');
}

static void gpus_json(void)
{
    struct cubind_driver_info d = {.size = sizeof d};
    int i, first = 1;
    cubind_driver_info(&d);
    probe_char('[');
    for (i = 0; i < d.gpu_count; ++i) {
        struct cubind_gpu_info g = {.size = sizeof g};
        if (cubind_gpu_info(i, &g) != CUBIND_OK)
            continue;
        fprintf(probe_out, "%s{\"index\":%d", first ? "" : ",", g.index);
        first = 0;
        json_int_or_null("nvml_index", g.nvml_index, g.nvml_index >= 0);
        json_member("name", g.name[0] ? g.name : NULL);
        json_member("name_source", source(g.name_source));
        json_member("uuid", g.uuid[0] ? g.uuid : NULL);
        json_member("uuid_source", source(g.uuid_source));
        fprintf(probe_out, ",\"compute_capability\":");
        if (g.compute_major >= 0)
            json_version(g.compute_major, g.compute_minor, -1);
        else
            fprintf(probe_out, "null");
        json_member("compute_capability_source", source(g.compute_source));
        json_int_or_null("memory_total_bytes", (long long)g.memory_total, g.memory_total != 0);
        json_int_or_null("memory_total_mib", (long long)(g.memory_total / (1024ull * 1024ull)), g.memory_total != 0);
        json_member("memory_source", source(g.memory_source));
        json_member("mig_current", mig_name(g.mig_current));
        json_member("mig_pending", mig_name(g.mig_pending));
        json_member("mig_source", source(g.mig_source));
        json_member("pci_bus_id", g.pci_bus_id[0] ? g.pci_bus_id : NULL);
        json_member("pci_bus_id_source", source(g.pci_source));
        probe_char('}');
    }
    probe_char(']');
}

void driver_section(struct probe *probe)
{
    if (probe->json)
        driver_json();
    else
        driver_text(probe);
}

void gpus_section(struct probe *probe)
{
    if (probe->json)
        gpus_json();
    else
        gpus_text();
}
