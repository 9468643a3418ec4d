/*
 * The XDP program (steer.bpf.c, compiled by clang) inside ttd, as bytes:
 * ttd_xdp_obj .. ttd_xdp_obj_end.  TTD_XDP_OBJ names the object file.
 */
	.section .rodata
	.balign 8
	.global ttd_xdp_obj
	.global ttd_xdp_obj_end
ttd_xdp_obj:
	.incbin TTD_XDP_OBJ
ttd_xdp_obj_end:
	.section .note.GNU-stack,"",@progbits
