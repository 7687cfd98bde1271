/* tests/mock/recorder.c - shared state of the mock CUDA libraries (see recorder.h). */
#define _POSIX_C_SOURCE 200809L
#include "recorder.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

struct args {
    unsigned char bytes[CUBIND_MOCK_MAX_ARG_BYTES];
    unsigned char any[CUBIND_MOCK_MAX_ARG_BYTES]; /* expected: 1 where any byte matches */
    size_t length;
    int overflow;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *last_symbol = "";
static const void *last_caller;
static struct args recorded, expected;
static unsigned long calls;
static int status_to_return;
static int detail_to_return; /* a status record's second member (cuFile's cu_err): 0 unless a test sets it */
static uintptr_t value_to_return;
static int passthrough;

/* Scripted from the environment (recorder.h): each rule's symbol, call number (0: every call),
 * status, and how many calls of its symbol it has seen; the status of this thread's call. */
#define MAX_RULES 64
struct rule {
    char symbol[128];
    unsigned long nth, seen;
    int status;
};
static pthread_once_t script_once = PTHREAD_ONCE_INIT;
static struct rule rules[MAX_RULES];
static int rule_count;
static int log_fd = -1;
static _Thread_local int scripted, scripted_status;

/* "symbol=status" or "symbol#N=status", separated by white space, commas or new lines; "#" at
 * the start of a rule starts a comment. */
static void parse_rules(const char *text, const char *where)
{
    while (text != NULL && *text != '\0') {
        struct rule r = {{0}, 0, 0, 0};
        size_t n = strcspn(text, "#=, \t\r\n");
        char *end;
        if (*text == '#') { /* a comment, to the end of its line */
            text += strcspn(text, "\n");
            continue;
        }
        if (n == 0) {
            text++;
            continue;
        }
        if (n >= sizeof r.symbol || rule_count == MAX_RULES)
            goto bad;
        memcpy(r.symbol, text, n);
        text += n;
        if (*text == '#') {
            r.nth = strtoul(text + 1, &end, 10);
            if (end == text + 1 || r.nth == 0)
                goto bad;
            text = end;
        }
        if (*text != '=')
            goto bad;
        r.status = (int)strtol(text + 1, &end, 0);
        if (end == text + 1)
            goto bad;
        text = end;
        rules[rule_count++] = r;
    }
    return;
bad:
    fprintf(stderr, "cubind mock: %s: cannot read \"%.40s\" (expected symbol=status or symbol#N=status)\n", where, text);
    abort();
}

static void read_script(void)
{
    const char *log = getenv("CUBIND_MOCK_LOG");
    const char *file = getenv("CUBIND_MOCK_STATUS_FILE");
    parse_rules(getenv("CUBIND_MOCK_STATUS"), "CUBIND_MOCK_STATUS");
    if (file != NULL && *file != '\0') {
        static char text[16384];
        FILE *f = fopen(file, "r");
        size_t n;
        if (f == NULL) {
            fprintf(stderr, "cubind mock: CUBIND_MOCK_STATUS_FILE: cannot open %s\n", file);
            abort();
        }
        n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        parse_rules(text, file);
    }
    if (log != NULL && *log != '\0' &&
        (log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0) {
        fprintf(stderr, "cubind mock: CUBIND_MOCK_LOG: cannot open %s\n", log);
        abort();
    }
}

/* The call's scripted status (if a rule says one) and its line in the log: the symbol. */
static void script_call(const char *symbol)
{
    int i, found = 0, status = 0;
    unsigned long nth;
    pthread_once(&script_once, read_script);
    if (rule_count == 0 && log_fd < 0)
        return;
    pthread_mutex_lock(&lock);
    for (i = 0; i < rule_count; ++i) {
        if (strcmp(rules[i].symbol, symbol) != 0)
            continue;
        nth = ++rules[i].seen;
        if (!found && (rules[i].nth == 0 || rules[i].nth == nth))
            found = 1, status = rules[i].status;
    }
    if (log_fd >= 0) {
        char line[256];
        int n = snprintf(line, sizeof line, "%s\n", symbol);
        if (n > 0 && write(log_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
            abort();
    }
    pthread_mutex_unlock(&lock);
    scripted = found;
    scripted_status = status;
}

static void append(struct args *a, const void *value, size_t size)
{
    if (a->length + size > sizeof a->bytes) {
        a->overflow = 1;
        return;
    }
    if (value != NULL)
        memcpy(a->bytes + a->length, value, size);
    memset(a->any + a->length, value == NULL, size);
    a->length += size;
}

EXPORT void cubind_mock_begin(const char *symbol, const void *caller)
{
    pthread_mutex_lock(&lock);
    last_symbol = symbol;
    last_caller = caller;
    recorded.length = 0;
    recorded.overflow = 0;
    calls++;
    pthread_mutex_unlock(&lock);
    script_call(symbol);
}

EXPORT void cubind_mock_arg(const void *value, size_t size)
{
    pthread_mutex_lock(&lock);
    append(&recorded, value, size);
    pthread_mutex_unlock(&lock);
}

EXPORT int cubind_mock_status(void)
{
    return scripted ? scripted_status : status_to_return;
}

EXPORT int cubind_mock_detail(void)
{
    return detail_to_return;
}

static pthread_once_t zero_once = PTHREAD_ONCE_INIT;
static int zero_fd = -1;

static void open_zero(void)
{
    zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
}

EXPORT void cubind_mock_zero(void *p, size_t size)
{
    if (p == NULL || size == 0)
        return;
    pthread_once(&zero_once, open_zero);
    if (zero_fd >= 0) {
        if (read(zero_fd, p, size) < 0) /* EFAULT: not writable memory, left alone */
            return;
    } else if ((uintptr_t)p >= 65536) { /* no /dev/zero: at least not the pages below mmap_min_addr */
        memset(p, 0, size);
    }
}

EXPORT uintptr_t cubind_mock_return(void)
{
    return value_to_return;
}

EXPORT int cubind_mock_passthrough(void)
{
    return passthrough;
}

EXPORT int cubind_mock_version(int property, int *value)
{
    return cubind_mock_version_of(property, value, 77, 1, 2);
}

EXPORT int cubind_mock_version_of(int property, int *value, int major, int minor, int patch)
{
    int version[3];
    const char *text = getenv("CUBIND_MOCK_VERSION");
    const char *fail = getenv("CUBIND_MOCK_VERSION_STATUS");
    const char *sleep_ms = getenv("CUBIND_MOCK_VERSION_SLEEP_MS");
    version[0] = major, version[1] = minor, version[2] = patch;
    if (sleep_ms != NULL && property == 0) { /* a slow query: nanosleep is a cancellation point */
        const char *fd_text = getenv("CUBIND_TEST_SLOW_FD");
        long ms = atol(sleep_ms);
        struct timespec delay;
        if (fd_text != NULL && write(atoi(fd_text), "v", 1) != 1)
            abort();
        delay.tv_sec = ms / 1000;
        delay.tv_nsec = (ms % 1000) * 1000000L;
        while (nanosleep(&delay, &delay) != 0)
            ;
    }
    if (fail != NULL && fail[0] != '\0')
        return atoi(fail);
    if (text != NULL)
        sscanf(text, "%d.%d.%d", &version[0], &version[1], &version[2]);
    if (property < 0 || property > 2 || value == NULL)
        return -1;
    *value = version[property];
    return 0;
}

/* cubind_mock_record's state (recorder.h): armed by a test, per record what the mock received and
 * what it writes. */
static struct {
    int armed;
    struct {
        unsigned char received[CUBIND_MOCK_MAX_RECORD_BYTES], write[CUBIND_MOCK_MAX_RECORD_BYTES];
        size_t received_size, write_size;
    } r[CUBIND_MOCK_RECORDS];
} records;

EXPORT void cubind_mock_record(unsigned n, const void *received, void *write, size_t size)
{
    pthread_mutex_lock(&lock);
    if (records.armed && n < CUBIND_MOCK_RECORDS && received != NULL && size <= CUBIND_MOCK_MAX_RECORD_BYTES) {
        memcpy(records.r[n].received, received, size);
        records.r[n].received_size = size;
        if (write != NULL)
            memcpy(write, records.r[n].write, records.r[n].write_size < size ? records.r[n].write_size : size);
    }
    pthread_mutex_unlock(&lock);
}

EXPORT void cubind_mock_records_arm(int on)
{
    pthread_mutex_lock(&lock);
    memset(&records, 0, sizeof records);
    records.armed = on;
    pthread_mutex_unlock(&lock);
}

EXPORT void cubind_mock_set_record(unsigned n, const void *bytes, size_t size)
{
    pthread_mutex_lock(&lock);
    if (n < CUBIND_MOCK_RECORDS && size <= CUBIND_MOCK_MAX_RECORD_BYTES) {
        memcpy(records.r[n].write, bytes, size);
        records.r[n].write_size = size;
    }
    pthread_mutex_unlock(&lock);
}

EXPORT const unsigned char *cubind_mock_record_received(unsigned n, size_t *size)
{
    if (n >= CUBIND_MOCK_RECORDS || records.r[n].received_size == 0)
        return NULL;
    *size = records.r[n].received_size;
    return records.r[n].received;
}

EXPORT void cubind_mock_set_status(int status)
{
    status_to_return = status;
}

EXPORT void cubind_mock_set_detail(int detail)
{
    detail_to_return = detail;
}

EXPORT void cubind_mock_set_return(uintptr_t value)
{
    value_to_return = value;
}

EXPORT void cubind_mock_set_passthrough(int on)
{
    passthrough = on;
}

EXPORT void cubind_mock_expect_begin(void)
{
    expected.length = 0;
    expected.overflow = 0;
}

EXPORT void cubind_mock_expect_arg(const void *value, size_t size)
{
    append(&expected, value, size);
}

EXPORT void cubind_mock_expect_any(size_t size)
{
    append(&expected, NULL, size);
}

EXPORT int cubind_mock_matches(const char *symbol)
{
    int same;
    size_t i;
    pthread_mutex_lock(&lock);
    same = strcmp(symbol, last_symbol) == 0 && !recorded.overflow && !expected.overflow &&
           recorded.length == expected.length;
    for (i = 0; same && i < recorded.length; ++i)
        same = expected.any[i] || recorded.bytes[i] == expected.bytes[i];
    pthread_mutex_unlock(&lock);
    return same;
}

EXPORT const char *cubind_mock_last_symbol(void)
{
    return last_symbol;
}

EXPORT const void *cubind_mock_last_caller(void)
{
    return last_caller;
}

EXPORT unsigned long cubind_mock_calls(void)
{
    return calls;
}
