/* SPDX-License-Identifier: ISC */
/* buf: buf_reserve (buf.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "buf.h"

int
buf_reserve(char **buf, size_t *cap, size_t need, size_t first)
{
	size_t c = *cap ? *cap : first;
	char *p;

	if (need <= *cap)
		return 0;
	if (need > PTRDIFF_MAX)
		return errno = ENOMEM, -1;
	if (c == 0)
		c = need;
	while (c < need)
		c = c > PTRDIFF_MAX / 2 ? need : c * 2;
	if ((p = realloc(*buf, c)) == NULL)
		return errno = ENOMEM, -1;
	*buf = p;
	*cap = c;
	return 0;
}
