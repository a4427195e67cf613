#include "ui/run/InsideResult.h"

#include "core/model/Model.h"
#include "core/run/Session.h"

#include <QElapsedTimer>

namespace ui {

InsideResultPtr openInside(const core::Session& session, const core::InsideQuery& query, uint64_t run) {
    QElapsedTimer timer;
    timer.start();
    auto res = std::make_shared<InsideResult>();
    res->row = session.inside(query);
    res->decodes = session.sharedModel()->config().hasDecoder();
    if (res->decodes)
        res->pipeline = session.samplingPipeline();
    res->run = run;
    res->step = static_cast<int>(session.decodedCount());
    for (const auto& t : session.sourceTokens())
        res->source.push_back(t.id);
    for (const auto& t : session.targetTokens())
        res->target.push_back(t.id);
    res->ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return res;
}

} // namespace ui
