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

PKGS        := netcdf cairo gsl otf2 libdw freetype2
PKG_CFLAGS  := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lhpdf -lm -lpthread
