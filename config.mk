# Build settings; override on the command line (make CC=clang WERROR=1).
CC      ?= cc
MPICC   ?= mpicc
OPT     ?= -O2 -g
WERROR  ?= 0
SAN     ?= 0
BUILD   ?= build
PYTHON  ?= /usr/bin/python3

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ifeq ($(WERROR),1)
WARN    += -Werror
endif
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
SANFLAGS :=
endif

# The libraries' flags come from pkg-config, which can only answer once the Debian packages are
# installed. So they are not read here when make parses this file (on a fresh machine that gives
# empty flags for the whole run): $(PKG_MK) is a makefile that make builds first, by installing
# what is missing and asking pkg-config, then includes after restarting. `make clean` and
# `make deps` need no flags and do not build it.
PKGS        := netcdf cairo gsl otf2 libdw freetype2
PKG_MK      := $(BUILD)/config.pkg.mk
NO_PKG_GOALS := clean clean-fuzz deps distclean uninstall
ifneq ($(if $(MAKECMDGOALS),$(filter-out $(NO_PKG_GOALS),$(MAKECMDGOALS)),all),)
-include $(PKG_MK)
endif
$(PKG_MK): config.mk scripts/install-deps.sh
	@scripts/install-deps.sh
	@mkdir -p $(dir $@)
	@cf=$$(pkg-config --cflags $(PKGS)) && lf=$$(pkg-config --libs $(PKGS)) && ol=$$(pkg-config --libs otf2) && \
	    printf 'PKG_CFLAGS := %s\nPKG_LIBS := %s -lhpdf -lm -lpthread\nOTF2_LIBS := %s\n' "$$cf" "$$lf" "$$ol" > $@.tmp && \
	    mv $@.tmp $@
