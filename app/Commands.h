#pragma once
// Terminal subcommands. Each returns the process exit code: 0 success, 2 bad arguments or input.

#include <string>
#include <vector>

int runConvert(const std::vector<std::string>& args);
int runDump(const std::vector<std::string>& args);
int runExplain(const std::vector<std::string>& args);
int runBench(const std::vector<std::string>& args);
int runBenchTrain(const std::vector<std::string>& args);
int runEval(const std::vector<std::string>& args);
int runInit(const std::vector<std::string>& args);
int runHeads(const std::vector<std::string>& args);
int runAlign(const std::vector<std::string>& args);
int runRollout(const std::vector<std::string>& args);
int runAblate(const std::vector<std::string>& args);
int runLens(const std::vector<std::string>& args);
int runAttribute(const std::vector<std::string>& args);
/// 1 when --play could not reach a step.
int runLesson(const std::vector<std::string>& args);
/// 130/143 when stopped by SIGINT/SIGTERM (a checkpoint is saved first).
int runTrain(const std::vector<std::string>& args);
int runGui(int argc, char** argv, const std::vector<std::string>& args);
