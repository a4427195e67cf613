#pragma once
// The options `dump` and `explain` share to start a run: the model, the source (text or ids), a teacher-
// forced target (text or ids) or greedy steps, and the device.

#include "app/Args.h"

#include "core/model/Model.h"
#include "core/run/Session.h"

#include <memory>
#include <string>

/// Option names for CommandOptions::valued.
inline const char* const kSessionOptions[] = {"--model",  "--src",     "--src-ids",
                                              "--tgt",    "--tgt-ids", "--greedy",
                                              "--device", "--ablate",  "--ablate-kind"};

/// Flags for CommandOptions::flags.
inline const char* const kSessionFlags[] = {"--past-max-len"};

/// The help lines for those options.
extern const char* const kSessionOptionsHelp;

/// A model loaded and a session run as the options say: the heads of --ablate switched off, analysed, then
/// decoded greedily --greedy N times.
struct StartedSession {
    std::shared_ptr<const core::Model> model;
    std::unique_ptr<core::Session> session;
    std::string srcText; ///< the source as text (detokenized when given as ids)
};

/// Throws UsageError for missing or contradictory options, and core's errors for a bad model or input.
StartedSession startSession(const Args& a);
