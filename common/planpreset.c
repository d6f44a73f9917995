/* SPDX-License-Identifier: ISC */
/* planpreset: what --preset sys withholds beneath /etc: the host's
 * secrets.  The run's view covers them (mountview.h); confexec names the
 * preset in a hint only for what it would grant. */
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "plan.h"

/* Beneath /etc: names that hold secrets whatever their mode (a host may
 * have made one readable by others by mistake; the payload still does
 * not read it through the preset). */
static const char *const secret_names[] = {
	"shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d",
	"ssh/ssh_host_*_key", "ssh/*_key", "ssl/private", "security/opasswd",
	"krb5.keytab", "ipsec.secrets", "ipsec.d/private", "ppp/chap-secrets",
	"ppp/pap-secrets", "NetworkManager/system-connections", "wireguard",
	"credstore", "credstore.encrypted", "libvirt/secrets",
	"docker/key.json", "containers/auth.json", "machine-id.secret",
};

const char *const *
plan_preset_secret_globs(size_t *n)
{
	*n = sizeof(secret_names) / sizeof(secret_names[0]);
	return secret_names;
}

int
plan_preset_secret_name(const char *rel)
{
	size_t i;

	for (i = 0; i < sizeof(secret_names) / sizeof(secret_names[0]); i++)
		if (fnmatch(secret_names[i], rel, FNM_PATHNAME) == 0)
			return 1;
	return 0;
}

int
plan_preset_withheld(const char *path)
{
	const struct plan_preset_entry *sys;
	char part[PATH_MAX];
	struct stat st;
	size_t i, n, len, root;

	sys = plan_preset_sys(&n);
	for (i = 0; i < n; i++)
		if (sys[i].withhold && plan_path_within(path, sys[i].path) &&
		    strcmp(path, sys[i].path) != 0)
			break;
	if (i == n || (len = strlen(path)) >= sizeof(part))
		return 0;
	root = strlen(sys[i].path);
	/* Each component below the entry, from the top: a secret by name,
	 * or one that others may not read (search, for a directory). */
	for (n = root + 1; n <= len; n++) {
		if (path[n] != '/' && path[n] != '\0')
			continue;
		memcpy(part, path, n);
		part[n] = '\0';
		if (plan_preset_secret_name(part + root + 1))
			return 1;
		if (lstat(part, &st) == -1)
			return 0;
		if (!(st.st_mode & S_IROTH) ||
		    (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH)))
			return 1;
	}
	return 0;
}
