#pragma once
// `attnscope bench --only inside`: how long the Inside page takes to follow a change of row or head. For the
// default model at T = 64 (cross-attention of a teacher-forced 64-token target over a 64-token source) and
// GPT-2 small's shape at T = 1,024 (decoder self-attention of a 1,024-token prompt), each timed run changes
// the row or the head (they alternate), recomputes the row as the worker does (Session::inside and the
// sampling pipeline) and hands it to the page until every chart has repainted. A QApplication must exist.

#include "app/bench/BenchMeasure.h"

#include <functional>
#include <string>
#include <vector>

struct InsideCase {
    std::string id;    ///< "default" or "gpt2"
    std::string model; ///< the model's name and shape
    std::string kind;  ///< the attention kind opened
    int length = 0;    ///< T
    std::vector<Row> rows;
    Target target; ///< the median change, compute and repaint, against its limit
};

struct InsideReport {
    Plan plan;
    int pageWidth = 0;
    int pageHeight = 0;
    std::vector<InsideCase> cases;
};

InsideReport measureInside(const std::string& defaultModelDir, const Plan& plan, int threads,
                           const std::function<void(const std::string&)>& progress);
void printText(const InsideReport& r);
nlohmann::ordered_json toJson(const InsideReport& r);
