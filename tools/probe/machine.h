/*
 * cubind-probe's sections on the machine: the driver and its GPUs (driver.c), the checks with a
 * verdict (checks.c). Each writes its text, or its JSON members, to standard output.
 */
#ifndef CUBIND_PROBE_MACHINE_H
#define CUBIND_PROBE_MACHINE_H

/* The driver and the GPUs: a text section, or the JSON members ,"driver":{...},"gpus":[...]. */
void driver_text(void);
void driver_json(void);

/* The checks (cubind_check_count): a text section, or the JSON member ,"checks":[...]. Each returns
 * the worst verdict (cubind_verdict: 0 ok, 1 warning, 2 error). */
int checks_text(void);
int checks_json(void);

/* The exit status the worst verdict gives: 3 for an error, and for a warning under --strict; else 0. */
int checks_exit_status(int worst, int strict);

#endif
