import { Controller, Get, Redirect } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/access';

/** The service's front door: a browser at `/` lands on the dashboard, and finds the icon where browsers look. */
@Controller()
@Public()
@ApiExcludeController()
export class HomeController {
  @Get()
  @Redirect('/dashboard/', 302)
  home(): void {}

  @Get('favicon.ico')
  @Redirect('/dashboard/favicon.svg', 301)
  favicon(): void {}
}
