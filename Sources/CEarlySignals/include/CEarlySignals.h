#ifndef FOLDKIT_EARLY_SIGNALS_H
#define FOLDKIT_EARLY_SIGNALS_H

#include "HelperSandbox.h"
#include "ParentDeath.h"

// SIGINT and SIGTERM are ignored from the moment the foldkit executable is initialised, before Swift's
// main runs, until TerminationSignals installs its handlers: a signal in that window no longer kills the
// process with its default action (the command then runs on, and exits 0 or with its own code).
// Returns 1 once the constructor has run (calling it also keeps the constructor linked in).
int foldkit_early_signals_installed(void);

#endif
