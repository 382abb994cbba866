#ifndef FOLDKIT_PARENT_DEATH_H
#define FOLDKIT_PARENT_DEATH_H

// Asks the kernel to send SIGKILL to the calling process when its parent dies (Linux: prctl
// PR_SET_PDEATHSIG), so a helper process never outlives the foldkit command that started it.
// Returns 0 when set, -1 where the platform has no such request (the helper then ends on its own time
// limit, which the parent enforces while it lives).
int foldkit_die_with_parent(void);

#endif
