! A Fortran program with regions, sampled through the C API (bound with iso_c_binding:
! the Fortran API's own timer does not sample).
program lines_demo
   use, intrinsic :: iso_c_binding
   implicit none
   interface
      integer(c_int) function sp_init(prefix, rank) bind(c, name="sp_init")
         import :: c_int, c_char
         character(kind=c_char), dimension(*) :: prefix
         integer(c_int), value :: rank
      end function
      integer(c_int) function sp_region(name) bind(c, name="sp_region")
         import :: c_int, c_char
         character(kind=c_char), dimension(*) :: name
      end function
      subroutine sp_begin(id) bind(c, name="sp_begin")
         import :: c_int
         integer(c_int), value :: id
      end subroutine
      subroutine sp_end(id) bind(c, name="sp_end")
         import :: c_int
         integer(c_int), value :: id
      end subroutine
      integer(c_int) function sp_finalize() bind(c, name="sp_finalize")
         import :: c_int
      end function
   end interface
   integer(c_int) :: rc, solve
   integer :: step
   real(kind=8) :: total

   rc = sp_init("profile"//c_null_char, 0)
   solve = sp_region("solve"//c_null_char)
   total = 0.0d0
   do step = 1, 4
      call sp_begin(solve)
      total = total + relax(40000000)
      call sp_end(solve)
   end do
   rc = sp_finalize()
   if (total < 0.0d0) print *, total

contains

   function relax(n) result(acc)
      integer, intent(in) :: n
      real(kind=8) :: acc
      integer :: i
      acc = 0.0d0
      do i = 1, n
         acc = acc + real(mod(i, 7), kind=8) * 0.5d0
         acc = acc - real(mod(i, 3), kind=8) * 0.25d0
      end do
   end function relax

end program lines_demo
