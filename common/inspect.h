/* SPDX-License-Identifier: ISC */
/* inspect: extract host mount sources from `docker inspect` JSON (untrusted
 * input: parsed with jansson, duplicates rejected, nothing else trusted). */
#ifndef BORNE_INSPECT_H
#define BORNE_INSPECT_H

#include <stddef.h>

#define INSPECT_MAX_SOURCES 4096	/* most distinct sources accepted */

struct inspect_sources {
	char **v;	/* absolute paths, unique, in input order */
	size_t n;
};

/* Parse buf (len bytes): a JSON array of container objects as printed by
 * `docker inspect` (or `podman inspect`).  For each container, each entry
 * of "Mounts" whose "Type" is "bind" or "volume" contributes its "Source"
 * (bind mounts and named volumes alike); "tmpfs" and every other type are
 * ignored, and so is everything outside "Mounts" (HostConfig.Tmpfs,
 * labels, names).  Duplicate sources are merged.  Returns 0 with out
 * filled (free with inspect_free), or -1 with a one-line reason in err
 * (malformed JSON, duplicate key, wrong type, a relative or empty Source,
 * too many sources) and out empty. */
int inspect_parse(const char *buf, size_t len, struct inspect_sources *out,
    char *err, size_t errlen);

/* Free what inspect_parse returned; out is left empty. */
void inspect_free(struct inspect_sources *out);

#endif
