#pragma once
// What lesson tests check of the window: a step reached (within a limit), and the window's state against
// the state a step asks for (model, text, decode step, page, kind, layer, head, colours, mark, Inside stage,
// training run and frame); an empty string when they agree.

#include "tests/support/WindowFixture.h"

#include "ui/base/ViewState.h"
#include "ui/lesson/LessonPlayer.h"
#include "ui/lesson/LessonStepReader.h"
#include "ui/train/TrainPage.h"

#include <QFileInfo>
#include <QStringList>
#include <QtTest>

inline const QString kLessons = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/lessons");
inline const QString kReverse = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/reverse");

// Waits for the player to reach its step; one that does not in `limitMs` sets *failure to what the window was
// waiting for then.
inline bool arrive(ui::LessonPlayer* player, QString* failure, int limitMs = 180000) {
    if (!QTest::qWaitFor([&] { return player->arrived(); }, limitMs) && failure->isEmpty())
        *failure = QStringLiteral("step %1 not reached in %2 s, waiting for %3")
                       .arg(player->index() + 1)
                       .arg(limitMs / 1000)
                       .arg(player->awaiting());
    return player->arrived() && failure->isEmpty();
}

// The window's state against a step's: what a replay must reach.
inline QString differs(WindowFixture& f, const ui::WindowState& s) {
    const auto r = f.controller->current();
    const auto* state = f.window.viewState();
    QStringList out;
    if (!r)
        return QStringLiteral("nothing analysed");
    if (QFileInfo(f.window.opener()->directory()).fileName() != QFileInfo(s.model).fileName())
        out << QStringLiteral("model %1").arg(f.window.opener()->directory());
    if (r->sourceText != s.text)
        out << QStringLiteral("text %1").arg(r->sourceText);
    if (r->step != s.step)
        out << QStringLiteral("step %1 (want %2)").arg(r->step).arg(s.step);
    if (ui::pageName(f.window.currentPage()) != s.tab)
        out << QStringLiteral("page %1").arg(ui::pageName(f.window.currentPage()));
    if (state->kind() != s.kind)
        out << QStringLiteral("kind %1").arg(ui::LessonStepReader::kindName(state->kind()));
    if (state->layer() != s.layer || state->head() != s.head)
        out << QStringLiteral("layer %1 head %2").arg(state->layer()).arg(state->head());
    if (state->scaleMode() != s.scale || state->valueWeighted() != s.valueWeighted)
        out << QStringLiteral("colours");
    const int markRow = state->markOrientation() == Qt::Horizontal ? state->markIndex() : -1;
    const int markColumn = state->markOrientation() == Qt::Vertical ? state->markIndex() : -1;
    if (markRow != s.markRow || markColumn != s.markColumn)
        out << QStringLiteral("mark %1/%2").arg(markRow).arg(markColumn);
    if (s.tab == QLatin1String("inside") && f.window.insideView()->stage() != s.insideStage)
        out << QStringLiteral("stage %1").arg(f.window.insideView()->stage());
    // A step's training run, and the frame it shows: the first after the induction head formed, or the last
    // at or before a step.
    const auto* t = f.window.trainPage();
    if (s.train.wanted() && (t->runPreset() != s.train.preset || t->runTiny() != s.train.tiny ||
                             (s.train.steps > 0 && t->runSteps() != s.train.steps)))
        out << QStringLiteral("training %1 (%2 steps)").arg(t->runPreset()).arg(t->runSteps());
    if (s.tab == QLatin1String("train")) {
        const int shown = t->shownFrame();
        const auto at = t->frameStep(shown);
        if (s.frame == ui::WindowState::kFormedFrame &&
            (t->formedStep() < 0 || at < t->formedStep() ||
             (shown > 0 && t->frameStep(shown - 1) >= t->formedStep())))
            out << QStringLiteral("frame of step %1 (formed at %2)").arg(at).arg(t->formedStep());
        if (s.frame >= 0 && (at > s.frame || (shown + 1 < t->frames() && t->frameStep(shown + 1) <= s.frame)))
            out << QStringLiteral("frame of step %1 (want the last at or before %2)").arg(at).arg(s.frame);
        if (s.frame == ui::WindowState::kLatestFrame && t->frames() > 0 && shown != t->frames() - 1)
            out << QStringLiteral("frame %1 of %2 (want the newest)").arg(shown).arg(t->frames());
    }
    return out.join(QStringLiteral(", "));
}
