/* Plain IDA* with Manhattan distance for the 15-puzzle: the anchor bench/sliding.py compares
 * the numba kernel against.  Korf's 1985 algorithm as usually written in C: recursion, parent
 * pruning, moves in the order up, left, right, down, h updated by a table lookup per move, the
 * root counted once.  Goal: blank in cell 0 and tile t in cell t (Korf's convention).
 *
 * Input (stdin): one instance per line, 16 numbers (more on the line are ignored).
 * Output (stdout): per instance "length generated cpu_seconds", measured with clock().
 *
 *     cc -O3 -march=native -o ida_manhattan ida_manhattan.c && ./ida_manhattan < korf100.txt
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 16
#define K 4

static int board[N];
static int md[N][N];         /* md[tile][cell]: Manhattan distance of tile at cell from home */
static int nbr[N][4];        /* cell the blank reaches in direction d, or -1 */
static long long generated;
static int bound, next_bound;

static int search(int blank, int g, int h, int from)
{
    for (int d = 0; d < 4; d++) {
        if (d == 3 - from) continue;            /* the step straight back */
        int to = nbr[blank][d];
        if (to < 0) continue;
        int tile = board[to];
        int hc = h + md[tile][blank] - md[tile][to];
        generated++;
        int f = g + 1 + hc;
        if (f > bound) {
            if (f < next_bound) next_bound = f;
            continue;
        }
        if (hc == 0) return g + 1;              /* Manhattan 0: every tile is home */
        board[blank] = tile;
        board[to] = 0;
        int found = search(to, g + 1, hc, d);
        board[to] = tile;
        board[blank] = 0;
        if (found) return found;
    }
    return 0;
}

int main(void)
{
    static const int dr[4] = {-1, 0, 0, 1}, dc[4] = {0, -1, 1, 0};
    for (int cell = 0; cell < N; cell++) {
        for (int d = 0; d < 4; d++) {
            int r = cell / K + dr[d], c = cell % K + dc[d];
            nbr[cell][d] = (r >= 0 && r < K && c >= 0 && c < K) ? r * K + c : -1;
        }
        for (int t = 0; t < N; t++)
            md[t][cell] = t ? abs(cell / K - t / K) + abs(cell % K - t % K) : 0;
    }
    char line[1024];
    while (fgets(line, sizeof line, stdin)) {
        int blank = -1, h = 0, read = 0;
        char *p = line, *end;
        for (int i = 0; i < N; i++, p = end) {
            board[i] = (int)strtol(p, &end, 10);
            if (end == p) break;
            read++;
            if (board[i] == 0) blank = i;
            h += md[board[i]][i];
        }
        if (read < N || blank < 0) continue;
        clock_t start = clock();
        generated = 1;
        int length = h == 0 ? 0 : -1;
        for (bound = h; length < 0; bound = next_bound) {
            next_bound = 1 << 30;
            int found = search(blank, 0, h, -1);
            if (found) length = found;
        }
        printf("%d %lld %.6f\n", length, generated, (double)(clock() - start) / CLOCKS_PER_SEC);
        fflush(stdout);
    }
    return 0;
}
