# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""The reports of scripts/bench, one module per mode (table: what they share)."""
