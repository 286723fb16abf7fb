# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# What two analyses of one port must agree on: the limit, per SL its VL,
# share and distances, per VL its weights, share and distances.
[.limit,
 [.sls[] | [.sl, .vl, .share_pct, .mean_distance, .max_distance]],
 [.vls[] | [.vl, .high_weight, .low_weight, .share_pct,
	    .mean_distance, .max_distance]]]
