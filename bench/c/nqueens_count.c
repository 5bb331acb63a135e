/* Plain bitboard n-Queens counter: the anchor bench/nqueens.py compares the numba count kernel
 * against.  The textbook recursion over rows with three attack masks (columns, the two
 * diagonals), the lowest free bit first, and mirror symmetry: the first queen goes into the left
 * half of row 0 and the count is doubled; for odd n the middle column is counted once on top.
 *
 * Input (stdin): one n per line (1..31).
 * Output (stdout): per n "n solutions cpu_seconds", measured with clock().
 *
 *     cc -O3 -march=native -o nqueens_count nqueens_count.c && echo 16 | ./nqueens_count
 */
#include <stdio.h>
#include <time.h>

static unsigned all;

static long long below(unsigned cols, unsigned left, unsigned right)
{
    if (cols == all) return 1;
    long long found = 0;
    unsigned free = all & ~(cols | left | right);
    while (free) {
        unsigned bit = free & -free;
        free ^= bit;
        found += below(cols | bit, (left | bit) << 1, (right | bit) >> 1);
    }
    return found;
}

static long long count(int n)
{
    all = (1u << n) - 1;
    long long found = 0;
    for (int c = 0; c < n / 2; c++) {
        unsigned bit = 1u << c;
        found += below(bit, bit << 1, bit >> 1);
    }
    found *= 2;
    if (n % 2) {
        unsigned bit = 1u << (n / 2);
        found += below(bit, bit << 1, bit >> 1);
    }
    return found;
}

int main(void)
{
    int n;
    while (scanf("%d", &n) == 1) {
        if (n < 1 || n > 31) return 1;
        clock_t start = clock();
        long long found = count(n);
        printf("%d %lld %.6f\n", n, found, (double)(clock() - start) / CLOCKS_PER_SEC);
        fflush(stdout);
    }
    return 0;
}
