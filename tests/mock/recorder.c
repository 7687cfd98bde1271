/* tests/mock/recorder.c - shared state of the mock CUDA libraries (see recorder.h). */
#define _POSIX_C_SOURCE 200809L
#include "recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "names.h"

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

/* ---- what cannot be used is refused (recorder.h): a message, then exit status CUBIND_MOCK_REFUSED ---- */

static _Noreturn void refuse(const char *format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    fprintf(stderr, "cubind mock: %s\n", message);
    fflush(NULL); /* what the program printed so far, then no atexit handler: this may be a library's constructor */
    _exit(CUBIND_MOCK_REFUSED);
}

/* What a file that is not a regular one is, for a message. */
static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device"
         : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/* ---- the script (recorder.h): rules from the environment, resolved through the IR's names (names.h) ---- */

/* A rule: the symbols it matches (an exported symbol as named, and the exports of a function named
 * by its C API name), its call number (0: every call), its value, how many calls it has seen. */
struct rule {
    char symbol[128];
    const char *exports;
    unsigned long nth, seen;
    int value;
};
static pthread_once_t script_once = PTHREAD_ONCE_INIT;
static struct rule rules[CUBIND_MOCK_MAX_RULES];
static int rule_count;
static char log_path[PATH_MAX];
static _Atomic int logging; /* 1 while CUBIND_MOCK_LOG is written (read without the lock by a call with no rule) */
static _Thread_local int scripted, scripted_value;

/* Where a rule was read, for its messages: the variable, or the file and its line. */
struct source {
    const char *what;
    int line; /* 0: not a file */
    int number; /* the rule's number in its source */
    const char *start; /* the rule's text */
};

static _Noreturn void bad_rule(const struct source *s, const char *format, ...)
{
    char why[512], line[32] = "";
    size_t length;
    va_list args;
    va_start(args, format);
    vsnprintf(why, sizeof why, format, args);
    va_end(args);
    if (s->line > 0)
        snprintf(line, sizeof line, " line %d", s->line);
    length = strcspn(s->start, ", \t\r\n");
    refuse("%s%s: rule %d \"%.*s%s\": %s", s->what, line, s->number, (int)(length > 100 ? 100 : length), s->start,
           length > 100 ? "..." : "", why);
}

static int in_list(const char *list, const char *symbol)
{
    for (; *list != '\0'; list += strlen(list) + 1)
        if (strcmp(list, symbol) == 0)
            return 1;
    return 0;
}

/* The functions a rule's name stands for: the one whose C API name it is, and those exporting it. */
struct named {
    const struct cubind_mock_function *api; /* by its C API name */
    const struct cubind_mock_function *export; /* the first exporting it */
    int scripted; /* the widest of theirs: status, else number, else none, else version */
};

static struct named find_name(const char *name)
{
    const struct cubind_mock_names *n = &cubind_mock_names;
    struct named found = {NULL, NULL, 0};
    size_t i;
    for (i = 0; i < n->function_count; ++i) {
        const struct cubind_mock_function *f = &n->functions[i];
        int named = 0;
        if (found.api == NULL && strcmp(f->name, name) == 0)
            found.api = f, named = 1;
        if (in_list(f->exports, name)) {
            if (found.export == NULL)
                found.export = f;
            named = 1;
        }
        if (named && (found.scripted == 0 || f->scripted < found.scripted))
            found.scripted = f->scripted; /* enum order: status, number, none, version */
    }
    return found;
}

/* A rule's value: a number in int's range, or (for a function returning a status) a status of its library by name. */
static int rule_value(const struct source *s, const char *text, size_t length, const struct named *named)
{
    const struct cubind_mock_names *n = &cubind_mock_names;
    const struct cubind_mock_function *f = named->api != NULL ? named->api : named->export;
    char token[128], *end;
    long long value;
    size_t i;
    if (length == 0)
        bad_rule(s, "no value after \"=\" (symbol=status or symbol#N=status)");
    if (length >= sizeof token)
        bad_rule(s, "the value is longer than %zu characters", sizeof token - 1);
    memcpy(token, text, length);
    token[length] = '\0';
    if ((token[0] >= '0' && token[0] <= '9') || token[0] == '-' || token[0] == '+') {
        errno = 0;
        value = strtoll(token, &end, 0);
        if (*end != '\0')
            bad_rule(s, "\"%s\" is not a number", token);
        if (errno == ERANGE || value < INT_MIN || value > INT_MAX)
            bad_rule(s, "%s is out of range: a value is from %d to %d", token, INT_MIN, INT_MAX);
        return (int)value;
    }
    if (named->scripted != CUBIND_MOCK_SCRIPT_STATUS)
        bad_rule(s, "%s returns a number, not a status: the rule gives one", f->name);
    for (i = 0; i < n->status_count; ++i)
        if (n->statuses[i].library == f->library && strcmp(n->statuses[i].name, token) == 0)
            return n->statuses[i].value;
    bad_rule(s, "%s is no status of %s (a number, or a constant of %s)", token, n->libraries[f->library].name,
             n->libraries[f->library].status_type);
}

/* "name=value" or "name#N=value", separated by white space, commas or new lines; "#" where a rule
 * would start begins a comment, to the end of its line. `name`: an exported symbol or a C API name. */
static void parse_rules(const char *text, const char *what, int file)
{
    struct source s = {what, file ? 1 : 0, 0, NULL};
    while (text != NULL && *text != '\0') {
        struct rule r = {{0}, NULL, 0, 0, 0};
        struct named named;
        size_t n;
        char *end;
        if (*text == '#') { /* a comment, to the end of its line */
            text += strcspn(text, "\n");
            continue;
        }
        if (strchr(" \t\r\n,", *text) != NULL) {
            s.line += *text == '\n' && file;
            text++;
            continue;
        }
        s.start = text;
        s.number++;
        if (rule_count == CUBIND_MOCK_MAX_RULES)
            bad_rule(&s, "more than %d rules (CUBIND_MOCK_MAX_RULES)", CUBIND_MOCK_MAX_RULES);
        n = strcspn(text, "#=, \t\r\n");
        if (n == 0)
            bad_rule(&s, "no name before \"=\" (symbol=status or symbol#N=status)");
        if (n >= sizeof r.symbol)
            bad_rule(&s, "a name is at most %zu characters", sizeof r.symbol - 1);
        memcpy(r.symbol, text, n);
        named = find_name(r.symbol);
        if (named.api == NULL && named.export == NULL)
            bad_rule(&s, "%s is no function of the mocks (an exported symbol or a C API name)", r.symbol);
        if (named.scripted == CUBIND_MOCK_SCRIPT_VERSION)
            bad_rule(&s, "%s is its library's version query, which CUBIND_MOCK_VERSION_STATUS scripts", r.symbol);
        if (named.scripted == CUBIND_MOCK_SCRIPT_NONE)
            bad_rule(&s, "%s returns no status and no number: no rule applies to it", r.symbol);
        r.exports = named.api != NULL ? named.api->exports : NULL;
        if (named.export == NULL)
            r.symbol[0] = '\0'; /* a C API name only: its exports match */
        text += n;
        if (*text == '#') {
            size_t digits = strspn(text + 1, "0123456789");
            errno = 0;
            r.nth = digits > 0 ? strtoul(text + 1, &end, 10) : 0;
            if (digits == 0 || errno == ERANGE || r.nth == 0)
                bad_rule(&s, "the call number after \"#\" is not from 1 to %lu", ULONG_MAX);
            text += 1 + digits;
        }
        if (*text != '=')
            bad_rule(&s, "expected symbol=status or symbol#N=status");
        text++;
        n = strcspn(text, "#, \t\r\n");
        r.value = rule_value(&s, text, n, &named);
        text += n;
        rules[rule_count++] = r;
    }
}

/* The whole of a status file, which must be a regular file of text (no NUL byte). */
static char *read_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    size_t length = 0, capacity;
    char *text, *nul;
    ssize_t got;
    if (fd < 0)
        refuse("CUBIND_MOCK_STATUS_FILE: cannot open %s: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0)
        refuse("CUBIND_MOCK_STATUS_FILE: cannot read %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        refuse("CUBIND_MOCK_STATUS_FILE: %s is %s, not a file of rules", path, file_kind(st.st_mode));
    capacity = (size_t)st.st_size + 1;
    if ((text = malloc(capacity)) == NULL)
        refuse("CUBIND_MOCK_STATUS_FILE: %s: no memory for its %zu bytes", path, capacity - 1);
    while ((got = read(fd, text + length, capacity - 1 - length)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            refuse("CUBIND_MOCK_STATUS_FILE: cannot read %s: %s", path, strerror(errno));
        length += (size_t)got;
        if (length == capacity - 1) { /* it grew while read: read on */
            char *more = realloc(text, capacity * 2);
            if (more == NULL)
                refuse("CUBIND_MOCK_STATUS_FILE: %s: no memory for more than %zu bytes", path, length);
            text = more, capacity *= 2;
        }
    }
    close(fd);
    if ((nul = memchr(text, '\0', length)) != NULL)
        refuse("CUBIND_MOCK_STATUS_FILE: %s has a NUL byte at offset %zu: rules are text", path, (size_t)(nul - text));
    text[length] = '\0';
    return text;
}

/* CUBIND_MOCK_LOG, opened for one record: without blocking (a FIFO no one reads fails at once), and
 * closed after it, so that no descriptor of the mocks outlives a call (a program may close and reuse it). */
static int open_log(void)
{
    int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0644);
    int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK); /* a pipe with a reader: its writes wait as usual */
    return fd;
}

static void read_script(void)
{
    const char *log = getenv("CUBIND_MOCK_LOG");
    const char *file = getenv("CUBIND_MOCK_STATUS_FILE");
    parse_rules(getenv("CUBIND_MOCK_STATUS"), "CUBIND_MOCK_STATUS", 0);
    if (file != NULL && *file != '\0') {
        char *text = read_file(file);
        char what[PATH_MAX + 32];
        snprintf(what, sizeof what, "CUBIND_MOCK_STATUS_FILE %s", file);
        parse_rules(text, what, 1);
        free(text);
    }
    if (log != NULL && *log != '\0') {
        int fd;
        if (strlen(log) >= sizeof log_path)
            refuse("CUBIND_MOCK_LOG: the path is longer than %zu bytes", sizeof log_path - 1);
        strcpy(log_path, log);
        if ((fd = open_log()) < 0)
            refuse("CUBIND_MOCK_LOG: cannot open %s: %s%s", log, strerror(errno),
                   errno == ENXIO ? " (a FIFO no one reads)" : "");
        close(fd);
        logging = 1;
    }
}

/* The call's line in the log (under `lock`): a write that fails says so once, and logging stops. */
static void log_call(const char *symbol)
{
    char line[256];
    int n = snprintf(line, sizeof line, "%s\n", symbol), fd, cancel;
    size_t length = n > 0 ? ((size_t)n < sizeof line ? (size_t)n : sizeof line - 1) : 0;
    ssize_t written = -1;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel); /* never left holding `lock` */
    if ((fd = open_log()) >= 0) {
        written = write(fd, line, length);
        if (written >= 0 && (size_t)written != length)
            errno = ENOSPC;
        close(fd);
    }
    if (written < 0 || (size_t)written != length) {
        fprintf(stderr, "cubind mock: CUBIND_MOCK_LOG: cannot write %s: %s; %s and the calls after it are not logged\n",
                log_path, strerror(errno), symbol);
        logging = 0;
    }
    pthread_setcancelstate(cancel, NULL);
}

static int rule_matches(const struct rule *r, const char *symbol)
{
    return (r->symbol[0] != '\0' && strcmp(r->symbol, symbol) == 0) || (r->exports != NULL && in_list(r->exports, symbol));
}

/* The call's scripted value (if a rule says one) and its line in the log: the symbol. */
static void script_call(const char *symbol)
{
    int i, found = 0, value = 0;
    unsigned long nth;
    scripted = 0;
    pthread_once(&script_once, read_script);
    if (rule_count == 0 && !logging)
        return;
    pthread_mutex_lock(&lock);
    for (i = 0; i < rule_count; ++i) {
        if (!rule_matches(&rules[i], symbol))
            continue;
        nth = ++rules[i].seen;
        if (!found && (rules[i].nth == 0 || rules[i].nth == nth))
            found = 1, value = rules[i].value;
    }
    if (logging)
        log_call(symbol);
    pthread_mutex_unlock(&lock);
    scripted = found;
    scripted_value = value;
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
    return scripted ? scripted_value : status_to_return;
}

EXPORT int cubind_mock_scripted(int *value)
{
    if (scripted && value != NULL)
        *value = scripted_value;
    return scripted;
}

EXPORT int cubind_mock_detail(void)
{
    return detail_to_return;
}

EXPORT void cubind_mock_zero(void *p, size_t size)
{
    int fd, cancel;
    if (p == NULL || size == 0)
        return;
    /* opened for this call only: a descriptor kept across calls could be closed by the program and its
     * number reused for a file of its own, which this read would then consume */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    if ((fd = open("/dev/zero", O_RDONLY | O_CLOEXEC)) >= 0) {
        if (read(fd, p, size) < 0) { /* EFAULT: not writable memory, left alone */
        }
        close(fd);
    } else if ((uintptr_t)p >= 65536) { /* no /dev/zero: at least not the pages below mmap_min_addr */
        memset(p, 0, size);
    }
    pthread_setcancelstate(cancel, NULL);
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

/* A number of int's range, all of `text`; 0 when it is not one. */
static int whole_number(const char *text, int *value)
{
    char *end;
    long long n;
    errno = 0;
    n = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || n < INT_MIN || n > INT_MAX)
        return 0;
    *value = (int)n;
    return 1;
}

/* CUBIND_MOCK_VERSION: "M", "M.m" or "M.m.p", each a number from 0 (parts not given are 0). */
static void version_from(const char *text, int version[3])
{
    char copy[64], *part, *next;
    int i, parsed[3] = {0, 0, 0};
    if (strlen(text) >= sizeof copy)
        refuse("CUBIND_MOCK_VERSION=%.40s...: not a version (M.m.p)", text);
    strcpy(copy, text);
    for (i = 0, part = copy; i < 3 && part != NULL; ++i, part = next) {
        next = strchr(part, '.');
        if (next != NULL)
            *next++ = '\0';
        if (part[0] < '0' || part[0] > '9' || !whole_number(part, &parsed[i]))
            refuse("CUBIND_MOCK_VERSION=%s: not a version (M.m.p, each part a number)", text);
    }
    if (part != NULL)
        refuse("CUBIND_MOCK_VERSION=%s: not a version (M.m.p, at most three parts)", text);
    memcpy(version, parsed, sizeof parsed);
}

EXPORT int cubind_mock_version_of(int property, int *value, int major, int minor, int patch)
{
    int version[3], status;
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
    if (fail != NULL && fail[0] != '\0') {
        if (!whole_number(fail, &status))
            refuse("CUBIND_MOCK_VERSION_STATUS=%s: not a status (a number)", fail);
        if (status != 0)
            return status;
    }
    if (text != NULL && text[0] != '\0')
        version_from(text, version);
    if (property < 0 || property > 2 || value == NULL)
        return -1;
    *value = version[property];
    return 0;
}

/* The launch configurations pushed and not yet popped, per thread (cubind_mock_push). */
static _Thread_local struct {
    unsigned char bytes[CUBIND_MOCK_MAX_PUSHED_BYTES];
    size_t length;
} pushed[CUBIND_MOCK_MAX_PUSHED];
static _Thread_local int pushed_count, popping, popped_at;
static _Thread_local size_t pop_offset;

EXPORT void cubind_mock_push(void)
{
    if (pushed_count == CUBIND_MOCK_MAX_PUSHED) /* the oldest goes */
        memmove(&pushed[0], &pushed[1], sizeof pushed[0] * (CUBIND_MOCK_MAX_PUSHED - 1)), pushed_count--;
    pushed[pushed_count++].length = 0;
}

EXPORT void cubind_mock_push_part(const void *bytes, size_t size)
{
    if (pushed_count > 0 && pushed[pushed_count - 1].length + size <= CUBIND_MOCK_MAX_PUSHED_BYTES) {
        memcpy(pushed[pushed_count - 1].bytes + pushed[pushed_count - 1].length, bytes, size);
        pushed[pushed_count - 1].length += size;
    }
}

EXPORT int cubind_mock_pop(void)
{
    popping = pushed_count > 0;
    popped_at = popping ? --pushed_count : 0;
    pop_offset = 0;
    return popping;
}

EXPORT void cubind_mock_pop_part(void *bytes, size_t size)
{
    if (bytes == NULL)
        return;
    if (popping && pop_offset + size <= pushed[popped_at].length)
        memcpy(bytes, pushed[popped_at].bytes + pop_offset, size);
    else
        memset(bytes, 0, size);
    pop_offset += size;
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
