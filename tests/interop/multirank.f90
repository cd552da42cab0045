!> A multi-rank driver for the reference's Fortran region API.
!!
!!     multirank_f PREFIX RANK
!!
!! Writes PREFIX_rank<NNNNN>.spt. Run it once per rank: call counts, the
!! recursion depth and which regions exist depend on RANK. Covers nesting,
!! recursion, source locations (file= and line=, a file without a line, a
!! location backfilled after registration), a name longer than the 128
!! characters the module keeps, a name with trailing blanks, the convenience
!! sp_begin_name/sp_end_name form, a region registered but never entered and
!! a call still open at finalize (dropped by the module).
program multirank_f
   use scope_profiler
   implicit none

   integer :: rank, step, k, outer, inner, late, noline, longname, unused, odd, dangling
   character(len=512) :: prefix, arg
   real(kind=8) :: sink

   if (command_argument_count() /= 2) then
      write (*, "(a)") "usage: multirank_f PREFIX RANK"
      error stop 2
   end if
   call get_command_argument(1, prefix)
   call get_command_argument(2, arg)
   read (arg, *) rank

   call sp_init(trim(prefix), rank=rank)
   sink = 0.0d0

   outer = sp_region("f_outer", file="solver/outer.f90", line=12)
   inner = sp_region("f_inner", file="solver/inner.f90", line=24)
   late = sp_region("f_late")
   noline = sp_region("f_no_line", file="noline.f90")
   longname = sp_region(repeat("L", 140))
   unused = sp_region("f_never_entered")
   dangling = sp_region("f_left_open   ")

   ! Registered last, entered first: the trace lists regions in registration
   ! order, the converter orders them by their earliest start.
   call sp_begin_name("f_prologue")
   sink = sink + busy_work(100)
   call sp_end_name("f_prologue")

   do step = 0, 2 + rank
      call sp_begin(outer)
      sink = sink + busy_work(1000)
      do k = 0, mod(step, 2)
         call sp_begin(inner)
         sink = sink + busy_work(300)
         call sp_end(inner)
      end do
      call sp_end(outer)
   end do

   late = sp_region("f_late", file="late.f90", line=77)
   call sp_begin(late)
   call descend(rank + 1)
   call sp_end(late)

   call sp_begin(noline)
   sink = sink + busy_work(100)
   call sp_end(noline)

   do step = 1, rank + 1
      call sp_begin(longname)
      sink = sink + busy_work(50)
      call sp_end(longname)
   end do

   ! A region only the odd ranks have, by name.
   if (mod(rank, 2) == 1) then
      odd = sp_region("odd_only", file="odd.f90", line=rank)
      call sp_begin_name("odd_only")
      sink = sink + busy_work(400)
      call sp_end_name("odd_only")
   end if

   ! A completed call, then an open one with a completed recursive child:
   ! finalize drops only the open call.
   call sp_begin(dangling)
   sink = sink + busy_work(10)
   call sp_end(dangling)
   call sp_begin(dangling)
   call sp_begin(dangling)
   call sp_end(dangling)

   call sp_finalize()
   if (sink < 0.0d0) write (*, *) sink

contains

   function busy_work(n) result(acc)
      integer, intent(in) :: n
      real(kind=8) :: acc
      integer :: i

      acc = 0.0d0
      do i = 1, n
         acc = acc + sqrt(real(i, kind=8))
      end do
   end function busy_work

   recursive subroutine descend(depth)
      integer, intent(in) :: depth
      integer :: id

      id = sp_region("f_descend", file="multirank.f90", line=95)
      call sp_begin(id)
      sink = sink + busy_work(200)
      if (depth > 0) call descend(depth - 1)
      call sp_end(id)
   end subroutine descend

end program multirank_f
