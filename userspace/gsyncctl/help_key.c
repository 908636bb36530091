// SPDX-License-Identifier: GPL-2.0 OR MIT
/* gsyncctl's help pages of key generate, show and set. */
#include <stddef.h>
#include <string.h>

#include "cmds.h"

static const char overview[] =
"NAME\n"
"    gsyncctl key - group secrets of keyed (authenticated, encrypted) groups\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl key generate [FILE] [--force]\n"
"    gsyncctl key show FILE [--json]\n"
"    gsyncctl [--netns NAME] key show [--id ID] [--json]\n"
"    gsyncctl [--netns NAME] key set --group ID [--rank R] --epoch N\n"
"        --start-seq S [--mode auth|encrypt] FILE\n"
"\n"
"DESCRIPTION\n"
"    A keyed group (GSYNC_KEY) seals every packet under keys derived from a\n"
"    32-byte group secret that every rank holds: auth authenticates\n"
"    everything and leaves the payload in clear, encrypt encrypts the\n"
"    payload too. The secret travels out of band, as a key file handed to\n"
"    every island: 44 characters of base64 and a newline, mode 0600, as\n"
"    WireGuard's key files. A key file that group or others may access, or\n"
"    that holds anything else, is refused. The kernel never gives a key\n"
"    back: it shows a key's fingerprint, the first 8 bytes of BLAKE2s-256\n"
"    over \"gsync fingerprint v1\" and the secret, as 16 hex digits.\n"
"    See gsyncctl help key generate|show|set, and docs/security.md.\n";

static const char generate_help[] =
"NAME\n"
"    gsyncctl key generate - make a new group secret\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl key generate [FILE] [--force]\n"
"\n"
"DESCRIPTION\n"
"    Draws 32 random bytes (getrandom) and writes them as a key file: to\n"
"    FILE, created with mode 0600 whatever the umask, then prints\n"
"    \"wrote FILE (mode 0600): fingerprint F\"; without FILE, the key's\n"
"    line on standard output (redirect it into a file only you can read;\n"
"    a warning says when standard output is a file group or others may\n"
"    read). An existing FILE is not overwritten unless --force is given;\n"
"    then a new file replaces it whole (written beside it and renamed).\n"
"\n"
"OPTIONS\n"
"    --force                replace an existing FILE\n"
"\n"
"EXIT STATUS\n"
"    0 written; 1 FILE exists (without --force) or cannot be written;\n"
"    2 usage.\n"
"\n"
"EXAMPLES\n"
"    gsyncctl key generate /etc/gsync/job.key\n"
"    (umask 077; gsyncctl key generate > job.key)\n";

static const char show_help[] =
"NAME\n"
"    gsyncctl key show - fingerprints of a key file or of the sockets' keys\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl key show FILE [--json]\n"
"    gsyncctl [--netns NAME] key show [--id ID] [--json]\n"
"\n"
"DESCRIPTION\n"
"    With FILE: the fingerprint of the key in key file FILE, 16 hex digits\n"
"    (--json: {\"file\": FILE, \"fingerprint\": \"...\"}); a file group\n"
"    or others may access, or that holds anything but one key, is\n"
"    refused. Compare it with the sockets' to see which key a group runs.\n"
"\n"
"    Without FILE: one line per socket of /proc/net/gsync in this network\n"
"    namespace (or --netns NAME), never the key itself:\n"
"      ID           socket id\n"
"      GROUP        group id in hex\n"
"      RANK         rank/nranks, \"-\" before joining\n"
"      MODE         none (no key), auth or encrypt\n"
"      EPOCH        the key epoch the socket sends with\n"
"      NEXT         a rotation's epoch, installed and not yet in use\n"
"      FINGERPRINT  the fingerprint of the key of EPOCH\n"
"    (\"-\" where there is no key). --json: {\"sockets\": [{\"id\": ...,\n"
"    \"state\": ..., \"group\": ..., \"rank\": ..., \"nranks\": ...,\n"
"    \"key_mode\": \"encrypt\", \"key_epoch\": 3, \"key_next_epoch\": 0,\n"
"    \"key_fingerprint\": \"...\"}, ...]}, /proc/net/gsync's columns.\n"
"\n"
"OPTIONS\n"
"    -i, --id ID            only the socket with this id\n"
"    -j, --json             one JSON document\n"
"\n"
"EXIT STATUS\n"
"    0 shown; 1 the key file is refused, or /proc/net/gsync is malformed\n"
"    or has no key columns (a module without keyed groups); 2 usage; 3 the\n"
"    module is not loaded.\n";

static const char set_help[] =
"NAME\n"
"    gsyncctl key set - rotate the key of a running group\n"
"\n"
"SYNOPSIS\n"
"    gsyncctl [--netns NAME] key set --group ID [--rank R] --epoch N\n"
"        --start-seq S [--mode auth|encrypt] FILE\n"
"\n"
"DESCRIPTION\n"
"    Installs the key of key file FILE as epoch N in every socket of this\n"
"    network namespace joined to group ID, or only in the one of rank R,\n"
"    with setsockopt(SOL_GSYNC, GSYNC_KEY_PUSH) on a fresh AF_GSYNC\n"
"    socket: as if each had set GSYNC_KEY itself. All or none. The sockets\n"
"    send with it from operation S on and accept both epochs around the\n"
"    switch; the old key is erased once no operation needs it.\n"
"\n"
"    Every rank of the group must have the new key, with the same S,\n"
"    before it submits operation S: run the same key set on every island\n"
"    with an S no rank has submitted yet (NEXT_SEQ in gsyncctl show tells\n"
"    how far each is). A group gets its first key from its own process,\n"
"    before it joins (libgsync's gsync_join_keyed(), Python's Group(...,\n"
"    key=)); key set only rotates keyed groups.\n"
"\n"
"OPTIONS\n"
"    -g, --group ID         the group: decimal or 0x-hex (required)\n"
"    -r, --rank R           only the socket of rank R (default: every rank\n"
"                           of the group in this namespace)\n"
"    --epoch N              the new epoch, above the group's current one\n"
"                           (EPOCH in gsyncctl key show); 1..4294967295\n"
"    --start-seq S          the first operation sent with it (required)\n"
"    --mode MODE            the group's mode: encrypt (default) or auth;\n"
"                           a group's mode never changes\n"
"    -n, --netns NAME       in network namespace NAME\n"
"\n"
"EXIT STATUS\n"
"    0 installed; 1 the key file is refused, or the kernel refused the key:\n"
"    ENOENT (no socket of the group in this namespace), EPERM (needs\n"
"    CAP_NET_ADMIN), EINVAL (epoch not above the current one, or another\n"
"    mode than the group's), EISCONN (the group was joined without a key),\n"
"    EBUSY (a rotation still pending), ERANGE (S already submitted);\n"
"    2 usage; 3 the gsync module is not loaded.\n"
"\n"
"EXAMPLES\n"
"    gsyncctl key generate /etc/gsync/job-2.key\n"
"    gsyncctl --netns gs-i0 key set --group 0x2a --epoch 2 \\\n"
"        --start-seq 5000 /etc/gsync/job-2.key\n";

const char *key_help(const char *sub)
{
	if (!sub)
		return overview;
	if (!strcmp(sub, "generate"))
		return generate_help;
	if (!strcmp(sub, "show"))
		return show_help;
	if (!strcmp(sub, "set"))
		return set_help;
	return NULL;
}
