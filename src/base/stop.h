/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The one stop signal. SIGINT and SIGTERM set a flag that every wait in
 * every command polls, so a run that is told to stop ends its waits, keeps
 * what it measured and reports it; SIGPIPE is ignored so a peer that
 * vanishes is an error return, not a death. main installs it once, before
 * any command runs.
 */
#ifndef RPERF_STOP_H
#define RPERF_STOP_H

#include <signal.h>
#include <stdbool.h>

/* Install the handlers (idempotent). */
void stop_install(void);
/* Whether a stop was asked for, by a signal or by stop_request(). */
bool stop_requested(void);
/* Ask every wait to end, as a signal would (a run's own deadline, a fault). */
void stop_request(void);
/* Forget a stop (tests that run several commands in one process). */
void stop_reset(void);
/* The flag itself, for engines that poll a pointer given in their options. */
volatile sig_atomic_t *stop_flag(void);

#endif
