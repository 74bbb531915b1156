/* stub */
#include "problems_report.h"
#include <string.h>
void lens_problems_report_opts_init(struct lens_problems_report_opts *o) { memset(o, 0, sizeof *o); }
int lens_problems_report_write(const struct lens_problems_report_opts *o,
                               const struct lens_problems_report_input *in, int nin,
                               const char *path, struct lens_err *e)
{ (void)o; (void)in; (void)nin; return lens_err_set(e, LENS_EINVAL, "%s: todo", path); }
