/* SPDX-License-Identifier: ISC */
/* page: the dashboard's three files, embedded (no external resource). */
#ifndef JC_PAGE_H
#define JC_PAGE_H

extern const char page_html[];
extern const char page_js[];
extern const char page_css[];

#endif
