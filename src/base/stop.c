/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The one stop signal: see stop.h.
 */
#include <signal.h>
#include <stddef.h>

#include "base/stop.h"

static volatile sig_atomic_t stop_flag_value;

static void stop_on_signal(int sig)
{
	(void)sig;
	stop_flag_value = 1;
}

void stop_install(void)
{
	struct sigaction sa = { .sa_handler = stop_on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

bool stop_requested(void)
{
	return stop_flag_value != 0;
}

void stop_request(void)
{
	stop_flag_value = 1;
}

void stop_reset(void)
{
	stop_flag_value = 0;
}

volatile sig_atomic_t *stop_flag(void)
{
	return &stop_flag_value;
}
