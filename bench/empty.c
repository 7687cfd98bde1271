/*
 * bench/empty.c - a program that does nothing: built once linked to libcubind (which
 * it never calls) and once not, the difference of their whole-process instruction
 * counts is what linking cubind costs at start-up (bench/report.py, row a).
 */
int main(void)
{
    return 0;
}
