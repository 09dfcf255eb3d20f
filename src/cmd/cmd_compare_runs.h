/* cmd_compare_runs: `probetop compare PROBLEM BENCH` on two runs of trend
 * data (.trend.db files, monitor trees): the per-target difference table
 * and the first step x target where the runs part (probetop(1), COMPARE
 * TWO EXPERIMENTS).  Exit as compare's: 0 they do not part, 1 they part,
 * 2 bad usage or unreadable input, 3 they do not part but some file could
 * not be read (--partial-ok accepts it). */
#ifndef PT_CMD_COMPARE_RUNS_H
#define PT_CMD_COMPARE_RUNS_H

/* 1 when compare's two operands are both trend data (compare's argv). */
int cmd_compare_runs_wanted(int argc, char **argv);
int cmd_compare_runs(int argc, char **argv);

#endif
