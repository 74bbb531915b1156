/* Fuzz target "template": a report template (render/doc/template.c: the line parser of
 * templates/NAME.tmpl, loaded from a file as the reports do) and the ${placeholder} expansion of
 * every text it holds (headings, paragraphs, field labels and values, named texts, footer).
 * Seeds: every templates/NAME.tmpl and templates/scale.txt. */
#include "fuzz_common.h"
#include "render/doc/template.h"

static void expand(const char *text, const struct lens_template_vars *v, int line)
{
    struct lens_err e = {0};
    char *out = NULL;
    if (text && lens_template_expand(text, v, "fuzz.tmpl", line, &out, &e) == LENS_OK)
        lens_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("fuzz.tmpl", data, size);
    struct lens_err e = {0};
    struct lens_template *t = NULL;
    if (fuzz_said("load", lens_template_load(path, &t, &e), &e) == LENS_OK) {
        struct lens_template_vars v;
        lens_template_vars_init(&v);
        lens_template_vars_set(&v, "title", "A title", &e);
        lens_template_vars_set(&v, "page", "1", &e);
        lens_template_vars_set(&v, "pages", "2", &e);
        lens_template_vars_set(&v, "procs", "32", &e);
        lens_template_vars_set(&v, "title", "replaced $ {x}", &e);
        expand(t->footer, &v, 0);
        for (int i = 0; i < t->nsections; i++) {
            const struct lens_template_section *s = &t->sections[i];
            for (int j = 0; j < s->nitems; j++) {
                expand(s->items[j].name, &v, s->items[j].line);
                expand(s->items[j].text, &v, s->items[j].line);
            }
            for (int j = 0; j < s->ntexts; j++) {
                char *out = NULL;
                if (lens_template_text(t, s, s->texts[j].name, &v, &out, &e) == LENS_OK)
                    lens_free(out);
            }
        }
        lens_template_vars_release(&v);
    }
    lens_template_free(t);
    return 0;
}
