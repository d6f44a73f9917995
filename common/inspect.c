/* SPDX-License-Identifier: ISC */
/* inspect: mount sources from docker inspect JSON. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "err.h"
#include "esc.h"
#include "inspect.h"

static int
add(struct inspect_sources *out, const char *s)
{
	char **v;
	size_t i;

	for (i = 0; i < out->n; i++)
		if (strcmp(out->v[i], s) == 0)
			return 0;
	if (out->n >= INSPECT_MAX_SOURCES)
		return errno = E2BIG, -1;
	v = realloc(out->v, (out->n + 1) * sizeof *v);
	if (v == NULL)
		return -1;
	out->v = v;
	if ((out->v[out->n] = strdup(s)) == NULL)
		return -1;
	out->n++;
	return 0;
}

static int
mount_source(json_t *m, size_t ci, size_t mi, struct inspect_sources *out,
    char *err, size_t errlen)
{
	json_t *type, *src;
	const char *t, *s;

	if (!json_is_object(m))
		return err_set(err, errlen, "container %zu: Mounts[%zu] is not an object",
		    ci, mi);
	type = json_object_get(m, "Type");
	if (!json_is_string(type))
		return err_set(err, errlen,
		    "container %zu: Mounts[%zu].Type missing or not a string", ci, mi);
	t = json_string_value(type);
	/* Only bind mounts and volumes have a host directory as Source. */
	if (strcmp(t, "bind") != 0 && strcmp(t, "volume") != 0)
		return 0;
	src = json_object_get(m, "Source");
	if (!json_is_string(src))
		return err_set(err, errlen,
		    "container %zu: Mounts[%zu].Source missing or not a string", ci, mi);
	s = json_string_value(src);
	if (json_string_length(src) != strlen(s))
		return err_set(err, errlen, "container %zu: Mounts[%zu].Source has a NUL byte",
		    ci, mi);
	if (s[0] != '/')
		return err_set(err, errlen,
		    "container %zu: Mounts[%zu].Source is not an absolute path", ci, mi);
	if (strlen(s) >= PATH_MAX)
		return err_set(err, errlen, "container %zu: Mounts[%zu].Source too long",
		    ci, mi);
	if (add(out, s) == -1)
		return err_set(err, errlen, "container %zu: Mounts[%zu]: %s", ci, mi,
		    errno == E2BIG ? "too many mount sources" : strerror(errno));
	return 0;
}

int
inspect_parse(const char *buf, size_t len, struct inspect_sources *out,
    char *err, size_t errlen)
{
	json_error_t je;
	json_t *root, *c, *mounts, *m;
	size_t ci, mi;

	out->v = NULL;
	out->n = 0;
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL) {
		char t[ESC_SIZE(JSON_ERROR_TEXT_LENGTH)];

		esc_name(je.text, t, sizeof(t));	/* it quotes the input */
		return err_set(err, errlen, "line %d column %d: %s", je.line,
		    je.column, t);
	}
	if (!json_is_array(root)) {
		err_set(err, errlen, "not a JSON array of containers");
		goto bad;
	}
	json_array_foreach(root, ci, c) {
		if (!json_is_object(c)) {
			err_set(err, errlen, "container %zu is not an object", ci);
			goto bad;
		}
		mounts = json_object_get(c, "Mounts");
		if (mounts == NULL || json_is_null(mounts))
			continue;
		if (!json_is_array(mounts)) {
			err_set(err, errlen, "container %zu: Mounts is not an array", ci);
			goto bad;
		}
		json_array_foreach(mounts, mi, m) {
			if (mount_source(m, ci, mi, out, err, errlen) == -1)
				goto bad;
		}
	}
	json_decref(root);
	return 0;
bad:
	json_decref(root);
	inspect_free(out);
	return -1;
}

void
inspect_free(struct inspect_sources *out)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		free(out->v[i]);
	free(out->v);
	out->v = NULL;
	out->n = 0;
}
