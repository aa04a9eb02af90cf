/* The subcommands of `perpi palmed` that live in files of their own. */
#ifndef PERPI_CMD_PALMED_H
#define PERPI_CMD_PALMED_H

int palmed_build_main(int argc, char **argv);	/* cmd/palmed_build.c */
int palmed_predict_main(int argc, char **argv); /* cmd/palmed_predict.c */
int palmed_eval_main(int argc, char **argv);	/* cmd/palmed_eval.c */

#endif
