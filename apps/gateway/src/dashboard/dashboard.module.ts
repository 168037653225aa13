import { Module } from '@nestjs/common';
import { HomeController } from './home.controller';

/** `/` and `/favicon.ico`; the dashboard's files themselves are static assets (see dashboard.ts). */
@Module({ controllers: [HomeController] })
export class DashboardModule {}
