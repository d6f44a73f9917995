/* SPDX-License-Identifier: ISC */
/* libFuzzer target: journalchain serve's AG-UI request body (a
 * RunAgentInput, cmd/journalchain/agui.c) against a journal of one run,
 * and the stream it starts: every event one SSE message of one JSON line. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "agui.h"
#include "journal.h"
#include "runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
setup(void)
{
	static int done;
	char path[] = "/tmp/borne-fuzz-agui.XXXXXX";
	const char *ev[] = {
		"{\"event\":\"start\",\"plan\":\"p\",\"program\":\"/bin/true\","
		    "\"argv\":[\"/bin/true\"],\"layers\":[\"landlock\"]}",
		"{\"event\":\"egress\",\"plan\":\"p\",\"verdict\":\"refused\"}",
		"{\"event\":\"end\",\"plan\":\"p\",\"exit\":0,\"timeout\":false}",
	};
	int fd;

	if (done)
		return;
	done = 1;
	fd = mkstemp(path);
	if (fd == -1)
		abort();
	close(fd);
	unlink(path);
	if (journal_append(path, ev, 3, NULL, 0) == -1 || runs_add(path) == -1)
		abort();
	runs_refresh();
	unlink(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agui *a;
	char msg[256], *out;
	size_t len, n = 0;
	int status;
	json_error_t e;
	json_t *j;

	setup();
	a = agui_open((const char *)data, size, &status, msg, sizeof(msg));
	if (a == NULL) {
		if (status != 400 && status != 404 && status != 500)
			abort();
		if (strchr(msg, '\n') != NULL)
			abort();
		return 0;
	}
	for (;;) {
		enum agui_step st = agui_next(a, &out, &len);

		if (st != AGUI_EVENT)
			break;
		if (len < 8 || memcmp(out, "data: ", 6) != 0 ||
		    memcmp(out + len - 2, "\n\n", 2) != 0 ||
		    memchr(out, '\n', len - 2) != NULL)
			abort();
		j = json_loadb(out + 6, len - 8, JSON_REJECT_DUPLICATES, &e);
		if (j == NULL || !json_is_string(json_object_get(j, "type")))
			abort();
		json_decref(j);
		free(out);
		if (++n > 1000)
			abort();
	}
	agui_close(a);
	return 0;
}
